import { statfs } from 'node:fs/promises';

/** Less than this free under the data folder reads as full. */
const LOW_FREE_BYTES = 16 * 1024 * 1024;
/** A write refused for lack of space keeps storage unhealthy this long… */
const FULL_NOTICE_MS = 5 * 60_000;
/** …unless this much more space has become free since. */
const FREED_BYTES = 64 * 1024 * 1024;

export interface StorageCheck {
  healthy: boolean;
  message: string;
  /** Bytes free for the server on the fullest of its local folders (temp area, filesystem blobs). */
  freeBytes?: number;
}

/**
 * Whether the server can store what it is sent (issue 12 §12), for the health detail: the free space
 * of its local folders (the temp area every upload is spooled to, and the blobs of a filesystem
 * store), and the last write refused for lack of space (ENOSPC, a quota, a full S3-compatible store).
 */
export class StorageHealth {
  private full: { at: number; message: string; freeBytes?: number } | undefined;

  constructor(
    private readonly dirs: string[],
    private readonly now: () => number = Date.now,
  ) {}

  /** A write failed for lack of space. */
  noteOutOfSpace(error: unknown): void {
    const e = error as { code?: unknown; syscall?: unknown; message?: unknown };
    const note = {
      at: this.now(),
      message:
        typeof e.code === 'string'
          ? `${e.code}${typeof e.syscall === 'string' ? ` on ${e.syscall}` : ''}`
          : String(e.message ?? error),
      freeBytes: undefined as number | undefined,
    };
    this.full = note;
    void this.freeBytes().then(
      (free) => {
        note.freeBytes = free;
      },
      () => {},
    );
  }

  async check(): Promise<StorageCheck> {
    const free = await this.freeBytes().catch(() => undefined);
    if (free !== undefined && free < LOW_FREE_BYTES)
      return {
        healthy: false,
        message: `Insufficient storage: only ${free} bytes free in the data folder`,
        freeBytes: free,
      };
    const full = this.full;
    const freedSince =
      full?.freeBytes !== undefined && free !== undefined && free > full.freeBytes + FREED_BYTES;
    if (full && this.now() - full.at < FULL_NOTICE_MS && !freedSince)
      return {
        healthy: false,
        message: `Insufficient storage: a write was refused for lack of space at ${new Date(full.at).toISOString()} (${full.message})`,
        freeBytes: free,
      };
    return { healthy: true, message: 'OK', freeBytes: free };
  }

  private async freeBytes(): Promise<number | undefined> {
    let least: number | undefined;
    for (const dir of this.dirs) {
      const stats = await statfs(dir);
      const free = stats.bavail * stats.bsize;
      least = least === undefined ? free : Math.min(least, free);
    }
    return least;
  }
}
