import type { FastifyReply } from 'fastify';

/**
 * An answer to apt, dpkg-deb's users and curl: a status and one plain-text line. apt shows the status
 * (`404  Not Found`), curl and the console show the line.
 */
export class DebianError extends Error {
  constructor(
    readonly status: number,
    message: string,
  ) {
    super(message);
  }
}

export const sendDebianError = (reply: FastifyReply, err: DebianError) =>
  reply
    .code(err.status)
    .header('cache-control', 'no-cache')
    .type('text/plain; charset=utf-8')
    .send(`${err.message}\n`);
