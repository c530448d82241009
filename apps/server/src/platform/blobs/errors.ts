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

/** How a stored blob failed verification: other bytes than its sha256, absent, or stored empty. */
export type BlobFaultKind = 'corrupt' | 'missing' | 'empty';

/**
 * The stored blob is not the content its sha256 names: its bytes hash differently (bit rot, a
 * partial overwrite), it is gone, or it holds 0 bytes where the artifact has more.
 */
export class BlobDamagedError extends Error {
  override readonly name = 'BlobDamagedError';

  constructor(
    readonly sha256: string,
    readonly kind: BlobFaultKind,
    /** What was found, e.g. `read 1048576 bytes hashing to 3f2a…`. */
    readonly detail: string,
    /**
     * The stored blob has the right size but other bytes: storing the same content again would not
     * replace it (a store keeps a blob of the right size), so it is moved aside (`quarantine`).
     */
    readonly sameSize = false,
  ) {
    super(`blob ${sha256} is ${kind === 'corrupt' ? 'damaged' : kind}: ${detail}`);
  }
}
