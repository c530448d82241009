import type { OutgoingHttpHeaders } from 'node:http';
import type { Readable } from 'node:stream';
import type { FastifyReply, FastifyRequest } from 'fastify';
import { type BlobCache, type BlobStore, pumpFile } from '../../platform/blobs/index.ts';
import { DomainError } from '../../platform/http/errors.ts';
import type { ArtifactRow } from './artifacts.queries.ts';
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

/** Serves a stored artifact: checksums, ETag, Last-Modified, conditional GET and byte ranges. */
export async function sendArtifact(
  request: FastifyRequest,
  reply: FastifyReply,
  store: { blobs: BlobStore; blobCache?: BlobCache },
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
    throw new DomainError(416, 'RANGE_NOT_SATISFIABLE', `The range is outside the file's ${size} bytes`);
  }
  if (request.method === 'HEAD') {
    reply.header('content-length', String(size));
    return reply.code(200).send();
  }
  if (!range || range.start === 0)
    request.server.packageDownloads?.count(artifact.repositoryId, artifact.path);
  // Small, often-read files come from memory: no file or S3 read per request.
  const whole = await store.blobCache?.read(artifact.sha256, size);
  if (whole) {
    if (range) {
      reply.header('content-range', `bytes ${range.start}-${range.end}/${size}`);
      reply.code(206);
      return reply.send(whole.subarray(range.start, range.end + 1));
    }
    return reply.code(200).send(whole);
  }
  const { blobs } = store;
  if (blobs.openFile) {
    // A local file: written straight to the socket through reused chunks (see pumpFile).
    const { file } = await blobs.openFile(artifact.sha256);
    const start = range?.start ?? 0;
    const end = range?.end ?? size - 1;
    if (range) reply.header('content-range', `bytes ${start}-${end}/${size}`);
    reply.header('content-length', String(end - start + 1));
    reply.code(range ? 206 : 200);
    reply.hijack();
    reply.raw.writeHead(reply.statusCode, reply.getHeaders() as OutgoingHttpHeaders);
    await pumpFile(reply.raw, file, start, end);
    return reply;
  }
  let stream: NodeJS.ReadableStream;
  if (range) {
    stream = await blobs.get(artifact.sha256, range);
    reply.header('content-range', `bytes ${range.start}-${range.end}/${size}`);
    reply.header('content-length', String(range.end - range.start + 1));
    reply.code(206);
  } else {
    stream = await blobs.get(artifact.sha256);
    reply.header('content-length', String(size));
    reply.code(200);
  }
  return reply.send(stream as Readable);
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
