import { createReadStream } from 'node:fs';
import { Readable } from 'node:stream';
import {
  AbortMultipartUploadCommand,
  CopyObjectCommand,
  DeleteObjectCommand,
  GetObjectCommand,
  HeadObjectCommand,
  ListMultipartUploadsCommand,
  paginateListObjectsV2,
  S3Client,
  S3ServiceException,
} from '@aws-sdk/client-s3';
import { Upload } from '@aws-sdk/lib-storage';
import { blobRelativePath, checkRange } from './blob-path.ts';
import type { S3Location } from './blob-store-url.ts';
import { BlobNotFoundError } from './errors.ts';
import type { TempArea } from './temp-area.ts';
import type { BlobInfo, BlobStore, ByteRange, ExpectedChecksums, PutOptions } from './types.ts';

const MIB = 1024 * 1024;
/**
 * lib-storage holds the parts in flight in memory: one upload uses about `(UPLOAD_QUEUE_SIZE + 1) × part size`
 * (25 MiB with S3's minimum 5 MiB parts), whatever the blob's size.
 */
const UPLOAD_QUEUE_SIZE = 4;
const MIN_PART_BYTES = 5 * MIB;
const MAX_PARTS = 10_000;
/** Incomplete multipart uploads older than this are leftovers of a crash, not an upload in progress on some node. */
const STALE_MULTIPART_MS = 24 * 60 * 60 * 1000;
const KEY_PATTERN = /^([0-9a-f]{2})\/([0-9a-f]{2})\/([0-9a-f]{64})$/;

function statusOf(error: unknown): number | undefined {
  return error instanceof S3ServiceException ? error.$metadata.httpStatusCode : undefined;
}

function isNotFound(error: unknown): boolean {
  return (
    error instanceof S3ServiceException &&
    (error.name === 'NotFound' || error.name === 'NoSuchKey' || statusOf(error) === 404)
  );
}

const CONTENT_RANGE_PATTERN = /^bytes (\d+)-(\d+)\/(\d+|\*)$/;

/** The bytes from `skip` on, at most `take` of them. */
async function* sliceOf(body: Readable, skip: number, take: number): AsyncGenerator<Buffer> {
  let position = 0;
  let remaining = take;
  for await (const chunk of body) {
    const bytes = chunk as Buffer;
    const from = Math.max(0, skip - position);
    position += bytes.length;
    if (from >= bytes.length) continue;
    const part = bytes.subarray(from, from + remaining);
    remaining -= part.length;
    yield part;
    if (remaining === 0) return; // leaving the loop destroys the body: the rest is not downloaded
  }
}

/**
 * Makes sure a ranged GET yields exactly the bytes asked for. S3 does; some S3-compatible servers
 * ignore the Range header or misread it (s3rver serves `bytes=0-0` whole), so their answer is sliced here.
 */
function exactRange(
  body: Readable,
  range: ByteRange,
  contentRange: string | undefined,
  contentLength: number | undefined,
): Readable {
  const served = CONTENT_RANGE_PATTERN.exec(contentRange ?? '');
  const servedStart = served ? Number(served[1]) : 0;
  const servedEnd = served ? Number(served[2]) : (contentLength ?? 0) - 1;
  const size = served ? (served[3] === '*' ? undefined : Number(served[3])) : contentLength;
  const end = size === undefined ? range.end : Math.min(range.end, size - 1);
  if (servedStart === range.start && servedEnd === end) return body;
  if (range.start > end) {
    body.destroy();
    throw new RangeError(`byte range ${range.start}-${range.end} starts past the end of a ${size}-byte blob`);
  }
  if (range.start < servedStart || end > servedEnd) {
    body.destroy();
    throw new Error(`S3 answered bytes ${servedStart}-${servedEnd} when asked for ${range.start}-${end}`);
  }
  return Readable.from(sliceOf(body, range.start - servedStart, end - range.start + 1), {
    objectMode: false,
  });
}

export function createS3Client(location: S3Location): S3Client {
  return new S3Client({
    region: location.region,
    forcePathStyle: location.forcePathStyle,
    ...(location.endpoint === undefined ? {} : { endpoint: location.endpoint }),
    // Only the checksums an operation requires: many S3-compatible servers reject the SDK's default
    // aws-chunked CRC trailers. Integrity is ours anyway: the key is the SHA-256 we computed.
    requestChecksumCalculation: 'WHEN_REQUIRED',
    responseChecksumValidation: 'WHEN_REQUIRED',
  });
}

/** Blobs as objects `prefix + ab/cd/abcd…` in one bucket of S3-compatible object storage. */
export class S3BlobStore implements BlobStore {
  readonly kind = 's3' as const;
  private readonly client: S3Client;
  private readonly bucket: string;
  private readonly prefix: string;
  private readonly temp: TempArea;

  constructor(client: S3Client, location: Pick<S3Location, 'bucket' | 'prefix'>, temp: TempArea) {
    this.client = client;
    this.bucket = location.bucket;
    this.prefix = location.prefix;
    this.temp = temp;
  }

  private keyOf(sha256: string): string {
    return this.prefix + blobRelativePath(sha256);
  }

  async put(
    source: NodeJS.ReadableStream | AsyncIterable<Uint8Array>,
    expected?: ExpectedChecksums,
    opts?: PutOptions,
  ): Promise<BlobInfo & { created: boolean }> {
    // Spool first: the key is the sha256, known only once every byte has been read.
    const { tempPath, info } = await this.temp.spool(source, expected);
    try {
      await opts?.beforeStore?.(info);
      const existing = await this.stat(info.sha256);
      if (existing && existing.size === info.size) return { ...info, created: false };
      const partSize = Math.max(MIN_PART_BYTES, Math.ceil(info.size / MAX_PARTS));
      // A multipart object becomes visible only when the upload completes.
      const upload = new Upload({
        client: this.client,
        queueSize: UPLOAD_QUEUE_SIZE,
        partSize,
        params: {
          Bucket: this.bucket,
          Key: this.keyOf(info.sha256),
          Body: createReadStream(tempPath, { highWaterMark: MIB }),
          ContentLength: info.size,
          ContentType: 'application/octet-stream',
        },
      });
      await upload.done();
      return { ...info, created: true };
    } finally {
      await this.temp.release(tempPath);
    }
  }

  async stat(sha256: string): Promise<{ size: number } | null> {
    const Key = this.keyOf(sha256);
    try {
      const head = await this.client.send(new HeadObjectCommand({ Bucket: this.bucket, Key }));
      return { size: head.ContentLength ?? 0 };
    } catch (error) {
      if (isNotFound(error)) return null;
      throw error;
    }
  }

  async get(sha256: string, range?: ByteRange): Promise<NodeJS.ReadableStream> {
    const Key = this.keyOf(sha256);
    if (range) checkRange(range);
    try {
      const answer = await this.client.send(
        new GetObjectCommand({
          Bucket: this.bucket,
          Key,
          ...(range ? { Range: `bytes=${range.start}-${range.end}` } : {}),
        }),
      );
      if (!(answer.Body instanceof Readable)) {
        throw new Error(`S3 GetObject ${Key} answered without a body stream`);
      }
      return range ? exactRange(answer.Body, range, answer.ContentRange, answer.ContentLength) : answer.Body;
    } catch (error) {
      if (isNotFound(error)) throw new BlobNotFoundError(sha256);
      if (range && (statusOf(error) === 416 || (error instanceof Error && error.name === 'InvalidRange'))) {
        throw new RangeError(`byte range ${range.start}-${range.end} starts past the end of blob ${sha256}`);
      }
      throw error;
    }
  }

  async delete(sha256: string): Promise<void> {
    await this.client.send(new DeleteObjectCommand({ Bucket: this.bucket, Key: this.keyOf(sha256) }));
  }

  async quarantine(sha256: string): Promise<void> {
    const Key = this.keyOf(sha256);
    try {
      await this.client.send(
        new CopyObjectCommand({
          Bucket: this.bucket,
          Key: `${this.prefix}quarantine/${sha256}.${Date.now()}`,
          CopySource: encodeURIComponent(`${this.bucket}/${Key}`).replaceAll('%2F', '/'),
        }),
      );
    } catch (error) {
      if (isNotFound(error)) return;
      throw error;
    }
    await this.client.send(new DeleteObjectCommand({ Bucket: this.bucket, Key }));
  }

  async *list(): AsyncIterable<string> {
    const pages = paginateListObjectsV2(
      { client: this.client },
      { Bucket: this.bucket, ...(this.prefix ? { Prefix: this.prefix } : {}) },
    );
    for await (const page of pages) {
      for (const object of page.Contents ?? []) {
        const match = KEY_PATTERN.exec(object.Key?.slice(this.prefix.length) ?? '');
        if (match?.[3]?.startsWith(`${match[1]}${match[2]}`)) yield match[3];
      }
    }
  }

  async purgeTemp(): Promise<{ removed: number }> {
    let removed = await this.temp.purge();
    removed += await this.abortStaleMultipartUploads();
    return { removed };
  }

  /** Aborts incomplete multipart uploads under the prefix left by a crash. Best effort: errors are ignored. */
  private async abortStaleMultipartUploads(): Promise<number> {
    const staleBefore = Date.now() - STALE_MULTIPART_MS;
    let aborted = 0;
    let KeyMarker: string | undefined;
    let UploadIdMarker: string | undefined;
    try {
      for (;;) {
        const page = await this.client.send(
          new ListMultipartUploadsCommand({
            Bucket: this.bucket,
            ...(this.prefix ? { Prefix: this.prefix } : {}),
            ...(KeyMarker ? { KeyMarker } : {}),
            ...(UploadIdMarker ? { UploadIdMarker } : {}),
          }),
        );
        for (const upload of page.Uploads ?? []) {
          if (!upload.Key || !upload.UploadId || !upload.Initiated) continue;
          if (upload.Initiated.getTime() > staleBefore) continue;
          try {
            await this.client.send(
              new AbortMultipartUploadCommand({
                Bucket: this.bucket,
                Key: upload.Key,
                UploadId: upload.UploadId,
              }),
            );
            aborted += 1;
          } catch {
            // Some S3-compatible servers (s3rver: 405) cannot abort; a lifecycle rule can clean up instead.
          }
        }
        if (!page.IsTruncated) break;
        KeyMarker = page.NextKeyMarker;
        UploadIdMarker = page.NextUploadIdMarker;
        if (!KeyMarker && !UploadIdMarker) break;
      }
    } catch {
      // Listing multipart uploads is not implemented everywhere (s3rver answers NotImplemented).
    }
    return aborted;
  }

  async close(): Promise<void> {
    this.client.destroy();
  }
}
