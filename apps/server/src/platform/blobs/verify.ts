import { createHash, type Hash } from 'node:crypto';
import { BlobDamagedError } from './errors.ts';

/**
 * Checks a blob read whole against its name: SHA-256 and size, fed chunk by chunk as the bytes go
 * out. `finish` throws BlobDamagedError unless exactly the blob's bytes were seen.
 */
export class BlobVerifier {
  private readonly hash: Hash = createHash('sha256');
  private seen = 0;

  constructor(
    readonly sha256: string,
    readonly size: number,
  ) {}

  update(chunk: Uint8Array): void {
    this.hash.update(chunk);
    this.seen += chunk.length;
  }

  get bytesSeen(): number {
    return this.seen;
  }

  finish(): void {
    if (this.seen === 0 && this.size > 0)
      throw new BlobDamagedError(this.sha256, 'empty', `stored 0 of ${this.size} bytes`);
    const actual = this.hash.digest('hex');
    if (this.seen !== this.size || actual !== this.sha256)
      throw new BlobDamagedError(
        this.sha256,
        'corrupt',
        `read ${this.seen} of ${this.size} bytes hashing to ${actual}`,
        this.seen === this.size,
      );
  }
}

/** How long a whole read that matched spares the next ones (the scrub job checks blobs between). */
export const VERIFIED_FOR_MS = 10 * 60_000;
const VERIFIED_KEPT = 10_000;

/**
 * Blobs this node hashed whole and found right, with the file's identity at the time (device,
 * inode, size, modification and change times). A download of such a blob within VERIFIED_FOR_MS,
 * its file unchanged, is sent without hashing it again: one thread's SHA-256 (about 1.2 GB/s here)
 * capped every large download together near 1 GB/s. A file rewritten or replaced has another
 * identity and is hashed again; bit rot that leaves the metadata alone is found by the next read
 * after the window or by the scrub. Per node and in memory: another node verifies on its own.
 */
export class VerificationMemo {
  private readonly seen = new Map<string, { identity: string; at: number }>();

  constructor(
    private readonly ttlMs = VERIFIED_FOR_MS,
    private readonly kept = VERIFIED_KEPT,
  ) {}

  has(sha256: string, identity: string, now = Date.now()): boolean {
    const entry = this.seen.get(sha256);
    return entry !== undefined && entry.identity === identity && now - entry.at < this.ttlMs;
  }

  remember(sha256: string, identity: string, now = Date.now()): void {
    this.seen.delete(sha256);
    this.seen.set(sha256, { identity, at: now });
    // A Map iterates in insertion order: the first entry is the oldest.
    if (this.seen.size > this.kept) this.seen.delete(this.seen.keys().next().value!);
  }

  forget(sha256: string): void {
    this.seen.delete(sha256);
  }
}

/** A file's identity for VerificationMemo: any rewrite, replacement or metadata change alters it. */
export const fileIdentity = (s: {
  dev: number;
  ino: number;
  size: number;
  mtimeMs: number;
  ctimeMs: number;
}) => `${s.dev}:${s.ino}:${s.size}:${s.mtimeMs}:${s.ctimeMs}`;

/**
 * The chunks of a blob read whole, verified as they pass: the last chunk is held back until every
 * byte has matched, so a damaged blob never reaches a reader complete (it fails with
 * BlobDamagedError instead). A blob that fits in one chunk is verified before anything is yielded.
 */
export async function* verifiedChunks(
  source: AsyncIterable<Uint8Array>,
  sha256: string,
  size: number,
): AsyncGenerator<Buffer> {
  const verifier = new BlobVerifier(sha256, size);
  let held: Buffer | undefined;
  for await (const chunk of source) {
    const bytes = Buffer.isBuffer(chunk) ? chunk : Buffer.from(chunk);
    if (bytes.length === 0) continue;
    verifier.update(bytes);
    if (held) yield held;
    held = bytes;
  }
  verifier.finish();
  if (held) yield held;
}
