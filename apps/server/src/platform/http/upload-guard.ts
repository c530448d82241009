import type { Socket } from 'node:net';
import type { FastifyReply, FastifyRequest } from 'fastify';
import type { Logger } from 'pino';
import { RateLimitedError, TimedOutError } from '../errors.ts';

export interface UploadLimits {
  /** A body arriving slower than this on average over a window is cut; 0: no minimum. */
  minBytesPerSec: number;
  windowMs: number;
  /** Uploads at once from one client address; 0: no cap. */
  maxPerAddress: number;
}

/** The node job that runs the slow-upload watchdog (`UploadGuard.tick`). */
export const UPLOAD_WATCHDOG_JOB = 'http.upload-watchdog';

/** What a client over its cap is told to wait before trying again. */
const RETRY_AFTER_SECS = 5;

/** An upload slower than the minimum rate, cut (408). */
export class UploadTooSlowError extends TimedOutError {
  constructor(rate: number, limits: UploadLimits) {
    super(
      `The upload was cut: ${rate.toFixed(0)} bytes/s over ${limits.windowMs / 1000} s, below the minimum of ${limits.minBytesPerSec} bytes/s`,
    );
  }
}

interface Watched {
  request: FastifyRequest;
  reply: FastifyReply;
  socket: Socket;
  /** Start of the window being measured, and the socket's bytes read then. */
  since: number;
  bytesThen: number;
}

const hasBody = (request: FastifyRequest) =>
  (request.method === 'PUT' || request.method === 'POST' || request.method === 'PATCH') &&
  (request.headers['transfer-encoding'] !== undefined ||
    (request.headers['content-length'] !== undefined && request.headers['content-length'] !== '0'));

/**
 * Slow clients (issue 12 §15), for every route whose request bodies are uploads (`onRequest`, added
 * by the artifact endpoints and the OCI registry): at most `maxPerAddress` uploads at once from one
 * address (429 with Retry-After, in the client's format), and a body that arrives slower than
 * `minBytesPerSec` averaged over `windowMs` is cut: a 408 is written and the connection closed, so
 * the handler's read fails and it stores nothing. Time the server itself does not read (a full
 * buffer: a slow disk, a lock) never counts against the client, nor does anything after the body.
 *
 * Bytes are counted on the socket, so nothing sits between the client and the handler. The
 * watchdog `tick` runs every `tickMs` as the node job `http.upload-watchdog` (registered by the
 * server when a minimum rate is set); with no upload in flight it does nothing.
 */
export class UploadGuard {
  private readonly perAddress = new Map<string, number>();
  private readonly watched = new Set<Watched>();
  /** How often `tick` should run: a quarter of the window, between 0.1 s and 5 s. */
  readonly tickMs: number;

  constructor(
    readonly limits: UploadLimits,
    private readonly log: Logger,
  ) {
    this.tickMs = Math.min(5000, Math.max(100, Math.floor(limits.windowMs / 4)));
  }

  /** Uploads in flight from `address` (for tests and the health detail). */
  inFlight(address: string): number {
    return this.perAddress.get(address) ?? 0;
  }

  readonly onRequest = async (request: FastifyRequest, reply: FastifyReply): Promise<void> => {
    if (!hasBody(request)) return;
    const { maxPerAddress, minBytesPerSec } = this.limits;
    if (maxPerAddress > 0) {
      const address = request.ip;
      const count = this.perAddress.get(address) ?? 0;
      if (count >= maxPerAddress) {
        this.log.warn(
          { address, url: request.url, uploads: count },
          'upload refused: too many at once from one address',
        );
        throw new RateLimitedError(
          `Too many uploads at once from ${address} (at most ${maxPerAddress}): try again in ${RETRY_AFTER_SECS} s`,
          undefined,
          { headers: { 'retry-after': String(RETRY_AFTER_SECS), connection: 'close' } },
        );
      }
      this.perAddress.set(address, count + 1);
      reply.raw.once('close', () => {
        const left = (this.perAddress.get(address) ?? 1) - 1;
        if (left > 0) this.perAddress.set(address, left);
        else this.perAddress.delete(address);
      });
    }
    const socket = request.raw.socket as Socket | undefined;
    if (minBytesPerSec > 0 && socket && typeof socket.bytesRead === 'number') {
      const entry: Watched = { request, reply, socket, since: Date.now(), bytesThen: socket.bytesRead };
      this.watched.add(entry);
      reply.raw.once('close', () => this.unwatch(entry));
    }
  };

  private unwatch(entry: Watched): void {
    this.watched.delete(entry);
  }

  /** The watchdog: cuts every upload whose rate over its window fell below the minimum. */
  tick(now = Date.now()): void {
    for (const entry of this.watched) {
      const { request, socket } = entry;
      const raw = request.raw;
      if (raw.complete || raw.destroyed || socket.destroyed) {
        this.unwatch(entry);
        continue;
      }
      const bytes = socket.bytesRead;
      // The server is not reading (its buffer is full): the wait is ours, not the client's.
      if (raw.readableLength >= raw.readableHighWaterMark || socket.isPaused()) {
        entry.since = now;
        entry.bytesThen = bytes;
        continue;
      }
      const elapsed = now - entry.since;
      if (elapsed < this.limits.windowMs) continue;
      const rate = ((bytes - entry.bytesThen) * 1000) / elapsed;
      if (rate >= this.limits.minBytesPerSec) {
        entry.since = now;
        entry.bytesThen = bytes;
        continue;
      }
      this.cut(entry, rate);
    }
  }

  private cut(entry: Watched, rate: number): void {
    this.unwatch(entry);
    const { request, reply, socket } = entry;
    const error = new UploadTooSlowError(rate, this.limits);
    this.log.warn(
      { address: request.ip, method: request.method, url: request.url, bytesPerSec: Math.round(rate) },
      'upload cut: slower than the minimum rate',
    );
    const destroy = () => {
      request.raw.destroy(error);
    };
    if (reply.raw.headersSent || !socket.writable) {
      destroy();
      return;
    }
    // As Node answers its own request timeout: the status line written straight to the socket, then
    // the connection closed, which fails the handler's read (nothing of the upload is stored).
    const body = JSON.stringify({ errors: [{ status: 408, code: error.code, message: error.message }] });
    socket.write(
      `HTTP/1.1 408 Request Timeout\r\nConnection: close\r\nContent-Type: application/json; charset=utf-8\r\nContent-Length: ${Buffer.byteLength(body)}\r\n\r\n${body}`,
      destroy,
    );
  }

  close(): void {
    this.watched.clear();
  }
}
