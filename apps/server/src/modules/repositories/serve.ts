import type { OutgoingHttpHeaders } from 'node:http';
import { Readable } from 'node:stream';
import { pipeline } from 'node:stream/promises';
import type { FastifyReply, FastifyRequest } from 'fastify';
import {
  type BlobCache,
  BlobDamagedError,
  BlobNotFoundError,
  type BlobStore,
  BlobVerifier,
  handleDamagedBlob,
  pumpFile,
  verifiedChunks,
} from '../../platform/blobs/index.ts';
import type { Db } from '../../platform/db/index.ts';
import { ContentDamagedError, OutOfRangeError } from '../../platform/errors.ts';
import { onEveryAnswer } from '../../platform/http/response-cache.ts';
import type { ArtifactExtensionPoint } from './artifact-extensions.ts';
import type { ArtifactRow } from './artifacts.queries.ts';
import { repositoryKeyOf } from './blob-scrub.queries.ts';
import { isActiveContent, mimeTypeOf } from './mime.ts';

/** Every artifact answer is inert: no sniffing, no scripts, pages downloaded rather than rendered. */
export function inertHeaders(reply: FastifyReply, name: string, mimeType: string): void {
  reply.header('content-type', mimeType);
  reply.header('x-content-type-options', 'nosniff');
  reply.header('content-security-policy', 'sandbox');
  if (isActiveContent(mimeType))
    reply.header('content-disposition', `attachment; filename*=UTF-8''${encodeURIComponent(name)}`);
}

function parseRange(header: string, size: number): { start: number; end: number } | 'unsatisfiable' | null {
  const m = /^bytes=(\d*)-(\d*)$/.exec(header.trim());
  if (!m || (m[1] === '' && m[2] === '')) return null; // several ranges or malformed: the whole file
  if (m[1] === '') {
    const suffix = Number(m[2]);
    if (suffix === 0) return 'unsatisfiable';
    return { start: Math.max(0, size - suffix), end: size - 1 };
  }
  const start = Number(m[1]);
  const end = m[2] === '' ? size - 1 : Math.min(Number(m[2]), size - 1);
  if (start >= size || end < start) return 'unsatisfiable';
  return { start, end };
}

function etagMatches(header: string, artifact: ArtifactRow): boolean {
  return header.split(',').some((raw) => {
    const tag = raw.trim().replace(/^W\//, '').replace(/^"|"$/g, '');
    return tag === '*' || tag === artifact.sha1 || tag === artifact.sha256;
  });
}

/** Where an artifact is served from: the blob store, its cache, and the database to record faults in. */
export interface ArtifactStore {
  db: Db;
  blobs: BlobStore;
  blobCache?: BlobCache;
  /** told of each whole download (the packages index counts them) */
  artifactExtensions?: Pick<ArtifactExtensionPoint, 'downloaded' | 'beforeDownload'>;
}

const FAULT_WORDS = { corrupt: 'damaged', missing: 'missing', empty: 'damaged (stored empty)' } as const;

/**
 * An artifact's blob is missing or failed verification (issue 12 §9, §11): one error line naming the
 * artifact and the blob, the fault recorded for repair (see handleDamagedBlob), and the error the
 * client gets when nothing was sent yet — a 500 saying so, with the request id.
 */
async function contentDamaged(
  request: FastifyRequest,
  store: ArtifactStore,
  artifact: ArtifactRow,
  error: BlobNotFoundError | BlobDamagedError,
): Promise<ContentDamagedError> {
  const kind = error instanceof BlobDamagedError ? error.kind : 'missing';
  const detail = error instanceof BlobDamagedError ? error.detail : 'the blob is not in the store';
  const repository = await repositoryKeyOf(store.db, artifact.repositoryId).catch(() => undefined);
  const where = `${repository ?? artifact.repositoryId}/${artifact.path}`;
  request.log.error(
    { repository, path: artifact.path, sha256: artifact.sha256, fault: kind, detail },
    `stored content of ${where} is ${FAULT_WORDS[kind]}: blob ${artifact.sha256}`,
  );
  await handleDamagedBlob(
    { db: store.db, blobs: store.blobs, log: request.log },
    { sha256: artifact.sha256, kind, detail, artifact: where, source: 'download' },
    error instanceof BlobDamagedError ? error : undefined,
  );
  return new ContentDamagedError(
    `The stored content of ${where} is ${FAULT_WORDS[kind]} (request ${request.id})`,
  );
}

const isBlobFault = (error: unknown): error is BlobNotFoundError | BlobDamagedError =>
  error instanceof BlobNotFoundError || error instanceof BlobDamagedError;

/**
 * Serves a stored artifact: checksums, ETag, Last-Modified, conditional GET and byte ranges. A whole
 * file is verified (SHA-256 and size) as it goes out: a damaged blob's answer is cut before its last
 * chunk, never completed (see pumpFile, verifiedChunks); a missing or empty one answers 500. A local
 * file this node hashed whole within VERIFIED_FOR_MS (on upload or a download), unchanged since, is
 * sent without hashing it again; the scrub job covers the time between.
 */
export async function sendArtifact(
  request: FastifyRequest,
  reply: FastifyReply,
  store: ArtifactStore,
  artifact: ArtifactRow,
): Promise<FastifyReply> {
  // A file a policy blocks (scanning, issue 16) is refused here, for every client and format.
  await store.artifactExtensions?.beforeDownload(artifact);
  try {
    return await sendVerified(request, reply, store, artifact);
  } catch (error) {
    if (isBlobFault(error)) throw await contentDamaged(request, store, artifact, error);
    throw error;
  }
}

async function sendVerified(
  request: FastifyRequest,
  reply: FastifyReply,
  store: ArtifactStore,
  artifact: ArtifactRow,
): Promise<FastifyReply> {
  const name = artifact.path.split('/').at(-1) ?? '';
  const modified = artifact.modifiedAt;
  reply.header('etag', `"${artifact.sha1}"`);
  reply.header('last-modified', modified.toUTCString());
  reply.header('x-checksum-sha1', artifact.sha1);
  reply.header('x-checksum-sha256', artifact.sha256);
  reply.header('x-checksum-md5', artifact.md5);
  reply.header('accept-ranges', 'bytes');
  inertHeaders(reply, name, artifact.mimeType ?? mimeTypeOf(name));

  const ifNoneMatch = request.headers['if-none-match'];
  const ifModifiedSince = request.headers['if-modified-since'];
  if (
    (ifNoneMatch && etagMatches(ifNoneMatch, artifact)) ||
    (!ifNoneMatch &&
      ifModifiedSince &&
      Math.floor(modified.getTime() / 1000) <= Math.floor(Date.parse(ifModifiedSince) / 1000))
  ) {
    reply.removeHeader('content-type');
    return reply.code(304).send();
  }

  const size = artifact.size;
  const rangeHeader = request.headers.range;
  const ifRange = request.headers['if-range'] as string | undefined;
  const range =
    rangeHeader && (!ifRange || etagMatches(ifRange, artifact)) && request.method === 'GET'
      ? parseRange(rangeHeader, size)
      : null;
  if (range === 'unsatisfiable') {
    reply.header('content-range', `bytes */${size}`);
    throw new OutOfRangeError(`The range is outside the file's ${size} bytes`);
  }
  if (request.method === 'HEAD') {
    reply.header('content-length', String(size));
    return reply.code(200).send();
  }
  if (!range || range.start === 0) {
    const by = request.principal?.name;
    // Counted again each time the response cache gives this answer again.
    onEveryAnswer(request, () =>
      store.artifactExtensions?.downloaded(artifact.repositoryId, artifact.path, by),
    );
  }
  // Small, often-read files come from memory: no file or S3 read per request (verified when loaded).
  const cached = await store.blobCache?.read(artifact.sha256, size);
  if (cached) {
    if (range) {
      reply.header('content-range', `bytes ${range.start}-${range.end}/${size}`);
      reply.code(206);
      return reply.send(cached.subarray(range.start, range.end + 1));
    }
    return reply.code(200).send(cached);
  }
  const { blobs } = store;
  const start = range?.start ?? 0;
  const end = range?.end ?? size - 1;
  // A byte range cannot be checked against the blob's sha256; the scrub checks those blobs whole.
  const whole = start === 0 && end === size - 1;
  if (range) reply.header('content-range', `bytes ${start}-${end}/${size}`);
  reply.header('content-length', String(end - start + 1));
  reply.code(range ? 206 : 200);
  const begin = () => {
    reply.hijack();
    reply.raw.writeHead(reply.statusCode, reply.getHeaders() as OutgoingHttpHeaders);
  };
  if (blobs.openFile) {
    // A local file: written straight to the socket through reused chunks (see pumpFile).
    const { file, size: stored, recentlyVerified, markVerified } = await blobs.openFile(artifact.sha256);
    if (stored !== size) {
      await file.close();
      throw new BlobDamagedError(
        artifact.sha256,
        stored === 0 ? 'empty' : 'corrupt',
        `stored ${stored} of ${size} bytes`,
      );
    }
    // A blob this node hashed whole a moment ago, its file unchanged, is not hashed again (see
    // VerificationMemo: one thread's SHA-256 capped all large downloads together near 1 GB/s).
    const verify = whole && !recentlyVerified;
    const result = await pumpFile(reply.raw, file, start, end, {
      verify: verify ? new BlobVerifier(artifact.sha256, size) : undefined,
      onFirstWrite: begin,
    });
    if (verify && result.complete) markVerified();
    if (result.damaged) {
      const answer = await contentDamaged(request, store, artifact, result.damaged);
      if (!result.started) throw answer; // nothing sent yet: a plain 500
    } else if (result.error) {
      request.log.error(
        { err: result.error, path: artifact.path, sha256: artifact.sha256 },
        'reading a blob failed mid-response',
      );
    }
    return reply;
  }
  if (!whole) return reply.send((await blobs.get(artifact.sha256, { start, end })) as Readable);
  // Another store (S3): the stream is verified as it passes, its last chunk held back until it
  // matched. A blob of one chunk is verified before the answer starts.
  const chunks = verifiedChunks(
    (await blobs.get(artifact.sha256)) as AsyncIterable<Uint8Array>,
    artifact.sha256,
    size,
  );
  const first = await chunks.next();
  begin();
  async function* all(): AsyncGenerator<Buffer> {
    if (!first.done) yield first.value;
    yield* chunks;
  }
  try {
    await pipeline(Readable.from(all()), reply.raw);
  } catch (error) {
    // The response is cut (pipeline destroyed it): the client sees a broken transfer.
    if (error instanceof BlobDamagedError) await contentDamaged(request, store, artifact, error);
    else if ((error as { code?: unknown }).code !== 'ERR_STREAM_PREMATURE_CLOSE')
      request.log.error(
        { err: error, path: artifact.path, sha256: artifact.sha256 },
        'reading a blob failed mid-response',
      );
  }
  return reply;
}

const escapeHtml = (s: string) =>
  s.replace(/[&<>"']/g, (c) => ({ '&': '&amp;', '<': '&lt;', '>': '&gt;', '"': '&quot;', "'": '&#39;' })[c]!);

/** A folder listing for browsers: names only, escaped; links relative to the folder. */
export function folderHtml(
  title: string,
  children: { name: string; folder: boolean }[],
  isRoot: boolean,
): string {
  const rows = [
    ...(isRoot ? [] : ['<li><a href="../">../</a></li>']),
    ...children.map((c) => {
      const label = c.folder ? `${c.name}/` : c.name;
      return `<li><a href="${escapeHtml(encodeURIComponent(c.name))}${c.folder ? '/' : ''}">${escapeHtml(label)}</a></li>`;
    }),
  ];
  return `<!doctype html>\n<html><head><meta charset="utf-8"><title>Index of ${escapeHtml(title)}</title></head>\n<body><h1>Index of ${escapeHtml(title)}</h1>\n<ul>\n${rows.join('\n')}\n</ul>\n</body></html>\n`;
}
