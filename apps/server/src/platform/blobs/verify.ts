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
