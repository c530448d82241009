import type { FileHandle } from 'node:fs/promises';

/** Checksums and size of a stored blob; every digest is lowercase hex. */
export interface BlobInfo {
  sha256: string;
  sha1: string;
  md5: string;
  size: number;
}

/** What the caller expects (client-sent checksums, declared length); hex digests in any letter case. */
export interface ExpectedChecksums {
  sha256?: string;
  sha1?: string;
  md5?: string;
  size?: number;
}

/** Options of `BlobStore.put` (issue 21: reference counting, see references.ts). */
export interface PutOptions {
  /**
   * Called once the content is hashed, before the store looks for an existing copy: the counted store
   * takes its hold here, so a garbage collection can never delete the copy a dedup finds.
   */
  beforeStore?(info: BlobInfo): Promise<void>;
  /** how long the counted store's hold lasts unless released (default references.ts HOLD_TTL_SECS) */
  holdSecs?: number;
  /** what the hold is for, shown in `blob_holds.reason` */
  holdReason?: string;
}

/** A claim on a blob's bytes (a `blob_holds` row) until released or lapsed. */
export interface BlobHold {
  readonly id: string;
  release(): Promise<void>;
  /** The hold's row was deleted in the caller's own transaction, now committed: release() has nothing left to do. */
  releasedElsewhere(): void;
}

/** Inclusive byte range, like HTTP `Range: bytes=start-end`. */
export interface ByteRange {
  start: number;
  end: number;
}

/**
 * Content-addressed storage of immutable bytes, keyed by SHA-256.
 * Implementations: the filesystem (default) and S3-compatible object storage.
 */
/** A blob open as a local file (BlobStore.openFile). */
export interface OpenBlobFile {
  file: FileHandle;
  size: number;
  /** This node read these very file contents whole and they matched, recently (VerificationMemo). */
  recentlyVerified: boolean;
  /** Records that a whole read of this file matched its sha256. */
  markVerified(): void;
}

export interface BlobStore {
  readonly kind: 'filesystem' | 's3';
  /**
   * Streams `source` in, hashing as it goes; visible only once complete and verified.
   * Identical content is stored once (`created: false` when it was already there).
   * Chunks are held (not copied) until written: a source must not reuse a chunk's memory after yielding it.
   */
  put(
    source: NodeJS.ReadableStream | AsyncIterable<Uint8Array>,
    expected?: ExpectedChecksums,
    opts?: PutOptions,
  ): Promise<BlobInfo & { created: boolean; hold?: BlobHold }>;
  /** null when absent */
  stat(sha256: string): Promise<{ size: number } | null>;
  /**
   * Readable stream of the blob or a byte range of it; throws BlobNotFoundError when absent.
   * `end` past the last byte is clamped to it; a range starting past the end throws RangeError.
   */
  get(sha256: string, range?: ByteRange): Promise<NodeJS.ReadableStream>;
  /**
   * The blob as an open local file, for stores that keep files (the filesystem store); the caller
   * closes it. Throws BlobNotFoundError when absent.
   */
  openFile?(sha256: string): Promise<OpenBlobFile>;
  /** Removes the blob; absent is fine. */
  delete(sha256: string): Promise<void>;
  /**
   * Moves a damaged blob out of the store's namespace (kept under `quarantine/` for inspection), so
   * it reads as absent and storing the same content again puts a good copy in its place; absent is fine.
   */
  quarantine(sha256: string): Promise<void>;
  /** Every stored sha256, in no particular order (for garbage collection). */
  list(): AsyncIterable<string>;
  /** Removes leftovers of interrupted writes (temp files; for S3 also stale incomplete multipart uploads). */
  purgeTemp(): Promise<{ removed: number }>;
  close(): Promise<void>;
}
