import { hasZodFastifySchemaValidationErrors } from '@fastify/type-provider-zod';
import { ErrorCode, type ErrorEnvelope } from '@granary/contracts';
import type { FastifyError, FastifyInstance, FastifyReply, FastifyRequest } from 'fastify';
import { stdSerializers } from 'pino';
import { z } from 'zod';
import { DomainError, describeIssues } from '../errors.ts';
import { httpStatusOf } from './error-status.ts';
import { infrastructureError } from './infrastructure-errors.ts';

const STATUS_CODES: Record<number, ErrorCode> = {
  400: ErrorCode.BadRequest,
  401: ErrorCode.Unauthorized,
  403: ErrorCode.Forbidden,
  404: ErrorCode.NotFound,
  405: ErrorCode.MethodNotAllowed,
  409: ErrorCode.Conflict,
  413: ErrorCode.PayloadTooLarge,
  415: ErrorCode.UnsupportedMediaType,
  429: ErrorCode.TooManyRequests,
  503: ErrorCode.Unavailable,
};

export function envelope(status: number, code: ErrorCode, message: string): ErrorEnvelope {
  return { errors: [{ status, code, message }] };
}

/** Maps any thrown error to `{errors: [{status, code, message}]}`; 5xx messages are hidden from clients. */
export function toEnvelope(error: unknown, request: FastifyRequest): { status: number; body: ErrorEnvelope } {
  if (error instanceof DomainError) {
    const status = httpStatusOf(error);
    return { status, body: envelope(status, error.code, error.message) };
  }
  if (hasZodFastifySchemaValidationErrors(error)) {
    const message = error.validation
      .map((v) => {
        const where = `${error.validationContext ?? 'request'}${v.instancePath ? v.instancePath.replaceAll('/', '.') : ''}`;
        return `${where}: ${v.message}`;
      })
      .join('; ');
    return { status: 400, body: envelope(400, ErrorCode.Invalid, message) };
  }
  // a service's own parse that no route schema caught: still the client's input (issue 12 §21)
  if (error instanceof z.core.$ZodError) {
    return { status: 400, body: envelope(400, ErrorCode.Invalid, describeIssues(error.issues)) };
  }
  const fe = error as FastifyError;
  const status =
    typeof fe.statusCode === 'number' && fe.statusCode >= 400 && fe.statusCode < 600 ? fe.statusCode : 500;
  if (status >= 500) {
    return {
      status,
      body: envelope(
        status,
        STATUS_CODES[status] ?? ErrorCode.Internal,
        `Internal server error (request ${request.id})`,
      ),
    };
  }
  return { status, body: envelope(status, STATUS_CODES[status] ?? ErrorCode.BadRequest, fe.message) };
}

/**
 * Package clients and scripts need the Basic challenge to know they may retry with credentials;
 * a browser shows its own sign-in dialog on it, so the console's calls (its API, or any call the
 * console makes with `X-Requested-With: XMLHttpRequest`) never get one.
 */
function wantsBasicChallenge(request: FastifyRequest): boolean {
  if (request.url.startsWith('/ui/')) return false;
  return request.headers['x-requested-with']?.toString().toLowerCase() !== 'xmlhttprequest';
}

/**
 * Renders an error in a client's own shape (npm `{error}`, OCI `errors[]`) for the requests it
 * recognises; undefined leaves the core's envelope. May set headers on `reply`. `thrown` is the
 * error as it was thrown, for the renderer's log should it fail. A renderer that throws is logged
 * and the core's envelope is answered.
 */
export type ErrorRenderer = (
  error: { status: number; code: string; message: string },
  request: FastifyRequest,
  reply: FastifyReply,
  thrown: unknown,
) => Promise<unknown>;

declare module 'fastify' {
  interface FastifyInstance {
    errorRenderers: ErrorRenderer[];
  }
}

export function registerErrorHandling(app: FastifyInstance): void {
  app.decorate('errorRenderers', [] as ErrorRenderer[]);
  app.setErrorHandler(async (thrown: unknown, request: FastifyRequest, reply: FastifyReply) => {
    // No space left → 507; the database unavailable → 503 with Retry-After (issue 12 §10, §12).
    const error = infrastructureError(thrown, request.id) ?? thrown;
    const { status, body } = toEnvelope(error, request);
    if (status >= 500) request.log.error({ err: thrown }, 'request failed');
    if (error instanceof DomainError && error.headers) reply.headers(error.headers);
    if (status === 401 && !reply.hasHeader('www-authenticate') && wantsBasicChallenge(request)) {
      reply.header('www-authenticate', 'Basic realm="Granary"');
    }
    const described = body.errors[0]!;
    for (const render of app.errorRenderers) {
      const custom = await render(described, request, reply, thrown).catch((failure: unknown) => {
        request.log.error(
          { err: failure, error: stdSerializers.err(thrown as Error) },
          'error renderer failed; answering with the core envelope',
        );
        return undefined;
      });
      if (custom !== undefined) return reply.code(status).send(custom);
    }
    return reply.code(status).type('application/json; charset=utf-8').send(body);
  });
  app.setNotFoundHandler((request, reply) =>
    reply
      .code(404)
      .send(envelope(404, ErrorCode.NotFound, `No route for ${request.method} ${request.url.split('?')[0]}`)),
  );
}
