import type { Socket } from 'node:net';
import type { FastifyReply } from 'fastify';

/** How long a refused upload's remaining bytes are read and dropped before the connection is cut. */
export const LINGER_MS = 2000;

/**
 * An answer sent before the request's body was read whole (a 413): `Connection: close`, then the
 * graceful close of RFC 9112 §9.6 — the server half-closes after the answer and keeps reading (and
 * dropping) what the client still sends, until the client closes or `ms` pass. Closing at once
 * leaves unread bytes in the socket, the kernel answers them with a reset, and a client still
 * writing sees EPIPE or ECONNRESET instead of the answer. Node closes a `Connection: close`
 * response's socket with `destroySoon()` (end, then destroy); for this socket that becomes end,
 * then destroy when the client's end arrives or the time is up.
 */
export function lingerAfterAnswer(reply: FastifyReply, ms = LINGER_MS): void {
  reply.header('connection', 'close');
  const request = reply.request.raw;
  const socket = request.socket as Socket & { destroySoon?: () => void };
  if (!socket || request.complete) return;
  socket.destroySoon = () => {
    const timer = setTimeout(() => socket.destroy(), ms);
    timer.unref();
    socket.once('close', () => clearTimeout(timer));
    socket.once('end', () => socket.destroy());
    socket.end();
    // The body flows away unread; the socket follows the request's pace, so both must flow.
    request.resume();
    socket.resume();
  };
}
