/** The blob asked for is not stored. */
export class BlobNotFoundError extends Error {
  override readonly name = 'BlobNotFoundError';
  readonly sha256: string;

  constructor(sha256: string) {
    super(`blob ${sha256} not found`);
    this.sha256 = sha256;
  }
}

export type ChecksumKind = 'sha256' | 'sha1' | 'md5' | 'size';

/** The bytes received do not match what the caller expected; nothing was stored. */
export class ChecksumMismatchError extends Error {
  override readonly name = 'ChecksumMismatchError';
  readonly checksum: ChecksumKind;
  readonly expected: string | number;
  /** For `size`, a stream cut short as soon as it went past the expected size reports the bytes seen so far. */
  readonly actual: string | number;

  constructor(checksum: ChecksumKind, expected: string | number, actual: string | number) {
    super(`${checksum} mismatch: expected ${expected}, got ${actual}`);
    this.checksum = checksum;
    this.expected = expected;
    this.actual = actual;
  }
}
