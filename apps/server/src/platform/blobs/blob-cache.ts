import type { BlobStore } from './types.ts';
import { verifiedChunks } from './verify.ts';

/** Blobs larger than this are always streamed from the store. */
export const BLOB_CACHE_MAX_ENTRY_BYTES = 4 * 1024 * 1024;

/**
 * The most-read small blobs, whole, in memory (least recently used out first, bounded in bytes).
 * Blobs are content-addressed and never change, so an entry is never stale: only a deleted blob
 * leaves. Serving from here costs no file or S3 read — the hot path of a package client fetching
 * the same tarballs and index documents over and over. A blob is verified (SHA-256 and size) as it
 * is loaded: damaged bytes fail the read with BlobDamagedError and are never kept.
 */
export class BlobCache {
  private readonly entries = new Map<string, Buffer>();
  private readonly loading = new Map<string, Promise<Buffer>>();
  private bytes = 0;

  constructor(
    private readonly store: BlobStore,
    private readonly capacityBytes: number,
  ) {}

  /**
   * The whole blob when it is small enough to cache (read and verified now on a miss), else null.
   * Throws BlobNotFoundError or BlobDamagedError when the stored blob is not `size` bytes hashing to `sha256`.
   */
  async read(sha256: string, size: number): Promise<Buffer | null> {
    if (size > BLOB_CACHE_MAX_ENTRY_BYTES || size > this.capacityBytes / 4) return null;
    const hit = this.entries.get(sha256);
    if (hit) {
      this.entries.delete(sha256);
      this.entries.set(sha256, hit);
      return hit;
    }
    let pending = this.loading.get(sha256);
    if (!pending) {
      pending = this.load(sha256, size).finally(() => this.loading.delete(sha256));
      this.loading.set(sha256, pending);
    }
    return pending;
  }

  private async load(sha256: string, size: number): Promise<Buffer> {
    const chunks: Buffer[] = [];
    const source = (await this.store.get(sha256)) as AsyncIterable<Uint8Array>;
    for await (const chunk of verifiedChunks(source, sha256, size)) chunks.push(chunk);
    const buffer = Buffer.concat(chunks);
    this.entries.set(sha256, buffer);
    this.bytes += buffer.length;
    for (const [key, value] of this.entries) {
      if (this.bytes <= this.capacityBytes) break;
      this.entries.delete(key);
      this.bytes -= value.length;
    }
    return buffer;
  }

  forget(sha256: string): void {
    const entry = this.entries.get(sha256);
    if (!entry) return;
    this.entries.delete(sha256);
    this.bytes -= entry.length;
  }

  get sizeBytes(): number {
    return this.bytes;
  }
}
