import { join, resolve } from 'node:path';
import { parseBlobStoreUrl } from './blob-store-url.ts';
import { FilesystemBlobStore } from './filesystem-blob-store.ts';
import { TempArea } from './temp-area.ts';
import type { BlobStore } from './types.ts';

export { BLOB_CACHE_MAX_ENTRY_BYTES, BlobCache } from './blob-cache.ts';
export {
  type BlobFault,
  type FoundFault,
  handleDamagedBlob,
  markBlobsRepaired,
  openBlobFaults,
  recordBlobFault,
} from './blob-faults.ts';
export { assertSha256, isSha256 } from './blob-path.ts';
export { parseBlobStoreUrl, type S3Location } from './blob-store-url.ts';
export {
  BlobDamagedError,
  type BlobFaultKind,
  BlobNotFoundError,
  type ChecksumKind,
  ChecksumMismatchError,
} from './errors.ts';
export { PUMP_CHUNK_BYTES, type PumpResult, pumpFile } from './file-pump.ts';
export {
  countedBlobStore,
  deleteBlobHolds,
  HOLD_TTL_SECS,
  HOLDERS,
  JSON_HOLDERS,
  registerBlobHolder,
  releaseBlobHold,
  takeBlobHold,
} from './references.ts';
export { SCRUB_JOB_NAME, type ScrubReport, type ScrubTarget, scrubBlobs } from './scrub.ts';
export { type StorageCheck, StorageHealth } from './storage-health.ts';
export type { BlobHold, BlobInfo, BlobStore, ByteRange, ExpectedChecksums, PutOptions } from './types.ts';
export { BlobVerifier, verifiedChunks } from './verify.ts';

/**
 * The blob store for a Granary home: the filesystem under `home/blobs` unless `url`
 * (`GRANARY_BLOBSTORE_URL`, `s3://bucket?endpoint=…&region=…`) names an S3-compatible bucket.
 * Either way incoming bytes are spooled and hashed in `home/tmp/blobs`. Throws on a malformed url.
 * The AWS SDK is loaded only when S3 is used: it costs tens of MB that a filesystem store does not need.
 */
export async function createBlobStore(opts: { home: string; url?: string }): Promise<BlobStore> {
  const home = resolve(opts.home);
  const temp = new TempArea(join(home, 'tmp', 'blobs'));
  const url = opts.url?.trim();
  if (!url) return new FilesystemBlobStore(join(home, 'blobs'), temp);
  const location = parseBlobStoreUrl(url);
  const { createS3Client, S3BlobStore } = await import('./s3-blob-store.ts');
  return new S3BlobStore(createS3Client(location), location, temp);
}
