import type { FastifyReply } from 'fastify';

/**
 * An answer on the YUM endpoint: a status and one plain-text line. dnf (librepo) and curl show the
 * status and this text (`Status code: 400 … <message>`); nothing richer is read by YUM clients.
 */
export class RpmError extends Error {
  constructor(
    readonly status: number,
    message: string,
  ) {
    super(message);
  }
}

export const sendRpmError = (reply: FastifyReply, err: { status: number; message: string }) =>
  reply
    .code(err.status)
    .header('cache-control', 'no-cache')
    .type('text/plain; charset=utf-8')
    .send(`${err.message}\n`);
