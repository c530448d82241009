import { createHash } from 'node:crypto';
import type { FastifyReply } from 'fastify';
import type { FormatRequest } from '../sdk/format.ts';
import { JSON_TYPE } from './index-builder.ts';

/**
 * twine prints an error's HTTP reason phrase (`HTTPError: 400 Bad Request from URL` then the reason),
 * as PyPI puts its message there; the body carries it too (`twine --verbose`, pip). The phrase must be
 * one printable ASCII line.
 */
export function reasonPhrase(message: string): string {
  return message
    .replace(/[\r\n\t]+/g, ' ')
    .replace(/[^\x20-\x7e]/g, '?')
    .slice(0, 400);
}

/** An error as PyPI answers it: the message as reason phrase and as a plain-text body. */
export function pypiError(reply: FastifyReply, status: number, message: string): FastifyReply {
  reply.raw.statusMessage = reasonPhrase(message);
  return reply
    .code(status)
    .header('cache-control', 'no-store')
    .type('text/plain; charset=utf-8')
    .send(`${status} ${message}\n`);
}

/** A simple-API document, with an ETag (If-None-Match answers 304) and `Vary: Accept`. */
export function sendDocument(
  req: FormatRequest,
  reply: FastifyReply,
  kind: 'json' | 'html',
  body: string,
): FastifyReply {
  const etag = `"${createHash('sha256').update(kind).update(body).digest('base64url').slice(0, 32)}"`;
  reply
    .header('etag', etag)
    .header('vary', 'Accept')
    .header('cache-control', 'max-age=0, must-revalidate')
    .header('x-content-type-options', 'nosniff')
    .header('content-security-policy', "default-src 'none'; sandbox");
  const match = req.headers['if-none-match'];
  if (typeof match === 'string' && match.split(',').some((m) => m.trim() === etag))
    return reply.code(304).send();
  return reply
    .code(200)
    .type(kind === 'json' ? JSON_TYPE : 'text/html; charset=utf-8')
    .send(body);
}

export function redirect(reply: FastifyReply, location: string): FastifyReply {
  return reply.code(301).header('location', location).header('cache-control', 'max-age=300').send();
}
