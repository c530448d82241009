import { createHash, type Hash, randomUUID } from 'node:crypto';
import { mkdir, readdir, rm } from 'node:fs/promises';
import { join } from 'node:path';
import { Transform, type TransformCallback } from 'node:stream';
import { pipeline } from 'node:stream/promises';
import { ChecksumMismatchError } from './errors.ts';
import { SideHashes } from './hash-pool.ts';
import { SyncingFileWriter } from './syncing-file-writer.ts';
import type { BlobInfo, ExpectedChecksums } from './types.ts';

/** Writes are batched up to this many bytes per `writev` while hashing continues. */
const WRITE_BUFFER_BYTES = 1024 * 1024;

export interface SpooledBlob {
  /** A complete, fsynced, verified copy of the bytes; the caller moves or uploads it, then calls `release`. */
  tempPath: string;
  info: BlobInfo;
}

/** Hashes SHA-256 here and SHA-1 and MD5 on the side (a worker for large inputs), in the same pass. */
class HashingTransform extends Transform {
  private readonly sha256: Hash = createHash('sha256');
  private readonly side = new SideHashes();
  private size = 0;
  private readonly maxSize: number | undefined;

  constructor(maxSize: number | undefined) {
    super();
    this.maxSize = maxSize;
  }

  override _transform(chunk: Buffer, _encoding: BufferEncoding, callback: TransformCallback): void {
    this.size += chunk.length;
    if (this.maxSize !== undefined && this.size > this.maxSize) {
      // Stop early: no point in spooling bytes that cannot match.
      callback(new ChecksumMismatchError('size', this.maxSize, this.size));
      return;
    }
    this.sha256.update(chunk);
    const wait = this.side.update(chunk);
    if (wait) wait.then(() => callback(null, chunk), callback);
    else callback(null, chunk);
  }

  override _destroy(error: Error | null, callback: (error?: Error | null) => void): void {
    // A stream that finished is destroyed too (autoDestroy): only a failure drops the side hashes.
    if (error) this.side.abort();
    callback(error);
  }

  async result(): Promise<BlobInfo> {
    const { sha1, md5 } = await this.side.digest();
    return { sha256: this.sha256.digest('hex'), sha1, md5, size: this.size };
  }
}

function verify(info: BlobInfo, expected: ExpectedChecksums): void {
  if (expected.size !== undefined && expected.size !== info.size) {
    throw new ChecksumMismatchError('size', expected.size, info.size);
  }
  for (const kind of ['sha256', 'sha1', 'md5'] as const) {
    const want = expected[kind];
    if (want !== undefined && want.toLowerCase() !== info[kind]) {
      throw new ChecksumMismatchError(kind, want, info[kind]);
    }
  }
}

function checkExpected(expected: ExpectedChecksums): void {
  if (expected.size !== undefined && !(Number.isSafeInteger(expected.size) && expected.size >= 0)) {
    throw new TypeError(`invalid expected size ${String(expected.size)}`);
  }
}

function isErrnoException(error: unknown): error is NodeJS.ErrnoException {
  return error instanceof Error && 'code' in error;
}

export function hasErrorCode(error: unknown, ...codes: string[]): boolean {
  return isErrnoException(error) && typeof error.code === 'string' && codes.includes(error.code);
}

/**
 * The local temp folder (`$GRANARY_HOME/tmp/blobs`) where incoming bytes are spooled and hashed
 * before they become a blob. Both stores use it: the key (the sha256) is known only at the end.
 */
export class TempArea {
  readonly dir: string;
  /** Temp files of writes in progress in this process: `purge` leaves them alone. */
  private readonly inFlight = new Set<string>();

  constructor(dir: string) {
    this.dir = dir;
  }

  /**
   * Streams `source` into a new temp file while hashing it, fsyncs the file, and verifies `expected`.
   * On any failure (source error, write error, mismatch) the temp file is removed and the error rethrown.
   */
  async spool(
    source: NodeJS.ReadableStream | AsyncIterable<Uint8Array>,
    expected: ExpectedChecksums = {},
  ): Promise<SpooledBlob> {
    checkExpected(expected);
    await mkdir(this.dir, { recursive: true });
    const tempPath = join(this.dir, `${randomUUID()}.part`);
    this.inFlight.add(tempPath);
    // The file is fsynced before the stream finishes; the pipeline settles only after the close.
    const file = new SyncingFileWriter(tempPath, WRITE_BUFFER_BYTES);
    try {
      const hasher = new HashingTransform(expected.size);
      await pipeline(source, hasher, file);
      const info = await hasher.result();
      verify(info, expected);
      return { tempPath, info };
    } catch (error) {
      // A failure can come before the file is even open: wait for the stream to let go of it, or
      // the file would be created after it was removed.
      if (!file.closed) await new Promise<void>((resolve) => file.once('close', () => resolve()));
      await this.release(tempPath);
      throw error;
    }
  }

  /** Removes a temp file once it has been moved or uploaded (already gone is fine). */
  async release(tempPath: string): Promise<void> {
    try {
      await rm(tempPath, { force: true });
    } finally {
      this.inFlight.delete(tempPath);
    }
  }

  /** Removes every leftover in the temp folder except this process's writes in progress. */
  async purge(): Promise<number> {
    let names: string[];
    try {
      names = await readdir(this.dir);
    } catch (error) {
      if (hasErrorCode(error, 'ENOENT')) return 0;
      throw error;
    }
    let removed = 0;
    for (const name of names) {
      const path = join(this.dir, name);
      if (this.inFlight.has(path)) continue;
      await rm(path, { recursive: true, force: true });
      removed += 1;
    }
    return removed;
  }
}
