import type { FastifyReply } from 'fastify';

/** An answer the go command prints: a status and a plain-text line (`server response: …`). */
export class GoError extends Error {
  constructor(
    readonly status: number,
    message: string,
  ) {
    super(message);
  }
}

/** Plain text, as proxy.golang.org answers and the go command shows under `server response:`. */
export function sendText(
  reply: FastifyReply,
  status: number,
  text: string,
  type = 'text/plain; charset=utf-8',
) {
  return reply.code(status).header('cache-control', 'no-cache').type(type).send(text);
}

export const sendGoError = (reply: FastifyReply, err: GoError) =>
  sendText(reply, err.status, `${err.message}\n`);
