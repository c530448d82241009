import type { FastifyInstance } from 'fastify';
import type { Logging } from '../logger/logger.ts';

/** One line per request in request.log: who asked what, the answer and how long it took. Never headers. */
export function registerRequestLog(app: FastifyInstance, logging: Pick<Logging, 'writeRequest'>): void {
  app.addHook('onResponse', (request, reply, done) => {
    logging.writeRequest({
      reqId: request.id,
      method: request.method,
      url: request.url,
      status: reply.statusCode,
      ms: Math.round(reply.elapsedTime * 10) / 10,
      user: request.principal?.name ?? null,
      ip: request.ip,
      ua: request.headers['user-agent'],
    });
    done();
  });
}
