import type { Dir } from 'node:fs';
import { type FileHandle, mkdir, open, opendir, rename, stat, unlink } from 'node:fs/promises';
import { dirname, join, relative, sep } from 'node:path';
import { blobRelativePath, checkRange } from './blob-path.ts';
import { BlobNotFoundError } from './errors.ts';
import { hasErrorCode, type TempArea } from './temp-area.ts';
import type { BlobInfo, BlobStore, ByteRange, ExpectedChecksums, OpenBlobFile, PutOptions } from './types.ts';
import { fileIdentity, VerificationMemo } from './verify.ts';

/** Large chunks serve big files markedly faster; a read never allocates more than the bytes left. */
const READ_CHUNK_BYTES = 1024 * 1024;
const FAN_OUT_PATTERN = /^[0-9a-f]{2}$/;
const SHA256_PATTERN = /^[0-9a-f]{64}$/;
/** Damaged blobs moved aside (`blobs/quarantine/<sha256>.<time>`); not a fan-out folder, so never listed. */
const QUARANTINE_DIR = 'quarantine';

/** Makes a rename or a new directory entry durable. */
async function fsyncDirectory(path: string): Promise<void> {
  const handle = await open(path, 'r');
  try {
    await handle.sync();
  } catch (error) {
    // Some filesystems cannot fsync a directory; the rename itself has happened.
    if (!hasErrorCode(error, 'EINVAL', 'EISDIR', 'EPERM', 'ENOTSUP')) throw error;
  } finally {
    await handle.close();
  }
}

async function* entriesOf(path: string, wantDirectories: boolean): AsyncGenerator<string> {
  let dir: Dir;
  try {
    dir = await opendir(path);
  } catch (error) {
    if (hasErrorCode(error, 'ENOENT', 'ENOTDIR')) return;
    throw error;
  }
  for await (const entry of dir) {
    if (entry.isDirectory() === wantDirectories) yield entry.name;
  }
}

/** Blobs as files under `$GRANARY_HOME/blobs/ab/cd/abcd…`. */
export class FilesystemBlobStore implements BlobStore {
  readonly kind = 'filesystem' as const;
  readonly root: string;
  private readonly temp: TempArea;
  /** Blobs hashed whole recently: written here, or read whole by a download that matched. */
  private readonly verified = new VerificationMemo();

  constructor(root: string, temp: TempArea) {
    this.root = root;
    this.temp = temp;
  }

  private pathOf(sha256: string): string {
    return join(this.root, ...blobRelativePath(sha256).split('/'));
  }

  async put(
    source: NodeJS.ReadableStream | AsyncIterable<Uint8Array>,
    expected?: ExpectedChecksums,
    opts?: PutOptions,
  ): Promise<BlobInfo & { created: boolean }> {
    const { tempPath, info } = await this.temp.spool(source, expected);
    try {
      await opts?.beforeStore?.(info);
      const target = this.pathOf(info.sha256);
      const existing = await stat(target).catch((error: unknown) => {
        if (hasErrorCode(error, 'ENOENT')) return null;
        throw error;
      });
      // Same sha256 means same bytes; a size that differs means a damaged file, which the new copy replaces.
      if (existing?.isFile() && existing.size === info.size) return { ...info, created: false };

      const dir = dirname(target);
      const firstCreated = await mkdir(dir, { recursive: true });
      await rename(tempPath, target);
      // These bytes were hashed on their way in: a download soon after need not hash them again.
      this.verified.remember(info.sha256, fileIdentity(await stat(target)));
      await fsyncDirectory(dir);
      if (firstCreated !== undefined) {
        // New fan-out folders: their own entries must be durable too, up to the folder that already existed.
        const parts = relative(dirname(firstCreated), dir).split(sep);
        for (let depth = parts.length - 1; depth >= 0; depth -= 1) {
          await fsyncDirectory(join(dirname(firstCreated), ...parts.slice(0, depth)));
        }
      }
      return { ...info, created: true };
    } finally {
      await this.temp.release(tempPath);
    }
  }

  async stat(sha256: string): Promise<{ size: number } | null> {
    try {
      const stats = await stat(this.pathOf(sha256));
      return stats.isFile() ? { size: stats.size } : null;
    } catch (error) {
      if (hasErrorCode(error, 'ENOENT')) return null;
      throw error;
    }
  }

  async get(sha256: string, range?: ByteRange): Promise<NodeJS.ReadableStream> {
    const path = this.pathOf(sha256);
    if (range) checkRange(range);
    let handle: FileHandle;
    try {
      handle = await open(path, 'r');
    } catch (error) {
      if (hasErrorCode(error, 'ENOENT')) throw new BlobNotFoundError(sha256);
      throw error;
    }
    try {
      if (!range) return handle.createReadStream({ highWaterMark: READ_CHUNK_BYTES });
      const { size } = await handle.stat();
      const { start, end } = checkRange(range, size);
      return handle.createReadStream({ start, end, highWaterMark: READ_CHUNK_BYTES });
    } catch (error) {
      await handle.close();
      throw error;
    }
  }

  async openFile(sha256: string): Promise<OpenBlobFile> {
    let file: FileHandle;
    try {
      file = await open(this.pathOf(sha256), 'r');
    } catch (error) {
      if (hasErrorCode(error, 'ENOENT')) throw new BlobNotFoundError(sha256);
      throw error;
    }
    try {
      const stats = await file.stat();
      const identity = fileIdentity(stats);
      return {
        file,
        size: stats.size,
        recentlyVerified: this.verified.has(sha256, identity),
        markVerified: () => this.verified.remember(sha256, identity),
      };
    } catch (error) {
      await file.close();
      throw error;
    }
  }

  async delete(sha256: string): Promise<void> {
    this.verified.forget(sha256);
    try {
      await unlink(this.pathOf(sha256));
    } catch (error) {
      if (!hasErrorCode(error, 'ENOENT')) throw error;
    }
  }

  async quarantine(sha256: string): Promise<void> {
    this.verified.forget(sha256);
    const dir = join(this.root, QUARANTINE_DIR);
    await mkdir(dir, { recursive: true });
    try {
      await rename(this.pathOf(sha256), join(dir, `${sha256}.${Date.now()}`));
    } catch (error) {
      if (!hasErrorCode(error, 'ENOENT')) throw error;
    }
  }

  async *list(): AsyncIterable<string> {
    for await (const first of entriesOf(this.root, true)) {
      if (!FAN_OUT_PATTERN.test(first)) continue;
      for await (const second of entriesOf(join(this.root, first), true)) {
        if (!FAN_OUT_PATTERN.test(second)) continue;
        for await (const name of entriesOf(join(this.root, first, second), false)) {
          if (SHA256_PATTERN.test(name) && name.startsWith(first + second)) yield name;
        }
      }
    }
  }

  async purgeTemp(): Promise<{ removed: number }> {
    return { removed: await this.temp.purge() };
  }

  async close(): Promise<void> {}
}
