import type { IncomingHttpHeaders } from 'node:http';
import type { Socket } from 'node:net';
import type { FastifyInstance } from 'fastify';
import type { Metrics } from './metrics.ts';

declare module 'fastify' {
  interface FastifyRequest {
    /** The package type of the repository this request is served from, when it is a repository request (metrics label). */
    repoType: string | null;
  }
}

const UPLOAD_METHODS = new Set(['PUT', 'POST', 'PATCH']);
const counted = Symbol('granary.bytesCounted');
type CountedSocket = Socket & { [counted]?: { read: number; written: number } };

/** One answered request, as the HTTP metrics count it (from Fastify's hook or the response cache). */
export interface AnsweredRequest {
  method: string;
  /** The route template, never the raw URL. */
  route: string;
  repoType: string | null;
  status: number;
  seconds: number;
  socket: Socket | null;
  headers: IncomingHttpHeaders;
}

/**
 * Counts an answered request into the HTTP metrics: requests and durations by route template
 * (never the raw URL, so label values stay bounded), bytes in and out from the connection's own
 * counters (what was read and written since the connection's previous request), and upload and
 * download durations of repository requests.
 */
export function countRequest(metrics: Metrics, answered: AnsweredRequest): void {
  const { method, route, status, seconds } = answered;
  const repoType = answered.repoType ?? 'none';
  const routeKey = `${method} ${route}`;
  metrics.httpRequests.inc(`${routeKey} ${status} ${repoType}`, () => ({
    method,
    route,
    status: String(status),
    repo_type: repoType,
  }));
  metrics.httpDuration.observe(routeKey, () => ({ method, route }), seconds);

  const socket = answered.socket as CountedSocket | null;
  if (socket) {
    const last = socket[counted];
    const read = socket.bytesRead;
    const written = socket.bytesWritten;
    const typeLabel = () => ({ repo_type: repoType });
    if (read > (last?.read ?? 0)) metrics.bytesIn.inc(repoType, typeLabel, read - (last?.read ?? 0));
    if (written > (last?.written ?? 0))
      metrics.bytesOut.inc(repoType, typeLabel, written - (last?.written ?? 0));
    if (last) {
      last.read = read;
      last.written = written;
    } else socket[counted] = { read, written };
  }

  if (answered.repoType !== null) {
    const headers = answered.headers;
    const hasBody = headers['transfer-encoding'] !== undefined || Number(headers['content-length']) > 0;
    if (UPLOAD_METHODS.has(method) && hasBody)
      metrics.uploadDuration.observe(repoType, () => ({ repo_type: repoType }), seconds);
    else if (method === 'GET' && status >= 200 && status < 300)
      metrics.downloadDuration.observe(repoType, () => ({ repo_type: repoType }), seconds);
  }
}

/** Counts every request Fastify answers (countRequest). */
export function registerRequestMetrics(app: FastifyInstance, metrics: Metrics): void {
  app.decorateRequest('repoType', null);
  app.addHook('onResponse', (request, reply, done) => {
    countRequest(metrics, {
      method: request.method,
      route: request.routeOptions.url ?? 'unmatched',
      repoType: request.repoType,
      status: reply.statusCode,
      seconds: reply.elapsedTime / 1000,
      socket: request.raw.socket,
      headers: request.headers,
    });
    done();
  });
}
