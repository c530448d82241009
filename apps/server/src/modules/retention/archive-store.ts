import { isAbsolute, join, resolve } from 'node:path';
import { FilesystemBlobStore } from '../../platform/blobs/filesystem-blob-store.ts';
import { type BlobStore, parseBlobStoreUrl } from '../../platform/blobs/index.ts';
import { TempArea } from '../../platform/blobs/temp-area.ts';

/**
 * The archive (cold storage, issue 21): a second content-addressed blob store named by
 * `GRANARY_ARCHIVE_STORE` — an absolute filesystem path (its spool area inside it, so a file lands by a
 * rename on the same filesystem) or `s3://bucket?endpoint=…&region=…[&prefix=…]` like
 * `GRANARY_BLOBSTORE_URL` (e.g. a bucket with a cheaper storage class). Null when not configured.
 */
export async function openArchiveStore(setting: string | undefined, home: string): Promise<BlobStore | null> {
  const value = setting?.trim();
  if (!value) return null;
  if (value.startsWith('s3://')) {
    const location = parseBlobStoreUrl(value);
    const { createS3Client, S3BlobStore } = await import('../../platform/blobs/s3-blob-store.ts');
    return new S3BlobStore(
      createS3Client(location),
      location,
      new TempArea(join(resolve(home), 'tmp', 'archive')),
    );
  }
  if (!isAbsolute(value)) throw new Error('GRANARY_ARCHIVE_STORE must be an absolute path or an s3:// URL');
  const root = resolve(value);
  return new FilesystemBlobStore(join(root, 'blobs'), new TempArea(join(root, 'tmp')));
}
