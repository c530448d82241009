import type { FastifyReply } from 'fastify';

/** How long a refused upload's remaining bytes are read and dropped before the connection is cut. */
export const LINGER_MS = 2000;

/**
 * An answer sent before the request's body was read whole (413, 401): the connection stays open
 * while the rest of the body flows away unread, for at most `ms`, and is then cut. Closing at once
 * would leave unread bytes in the socket, the kernel would answer them with a reset, and a client
 * still writing would see EPIPE or ECONNRESET instead of the answer (nginx's "lingering close").
 * The body must be flowing (drained, not paused) for this to help; `readBounded` with
 * `rest: 'drain'` leaves it so.
 */
export function lingerAfterAnswer(reply: FastifyReply, ms = LINGER_MS): void {
  const request = reply.request.raw;
  reply.raw.once('finish', () => {
    if (request.complete) return;
    const socket = request.socket;
    const timer = setTimeout(() => socket.destroy(), ms);
    timer.unref();
    const done = () => clearTimeout(timer);
    request.once('end', done);
    socket.once('close', done);
    request.resume();
  });
}
