import Fastify, { type FastifyBaseLogger, type FastifyRequest } from 'fastify';
import { pino } from 'pino';
import { describe, expect, it } from 'vitest';
import { z } from 'zod';
import {
  ConflictError,
  ForbiddenError,
  InvalidError,
  NotFoundError,
  RateLimitedError,
  validField,
} from '../errors.ts';
import { type ErrorRenderer, registerErrorHandling, toEnvelope } from './error-handler.ts';

const request = { id: 'req-1' } as FastifyRequest;

describe('error handler', () => {
  it('maps domain errors to their status and stable code', () => {
    expect(toEnvelope(new NotFoundError('no such repo'), request)).toEqual({
      status: 404,
      body: { errors: [{ status: 404, code: 'NOT_FOUND', message: 'no such repo' }] },
    });
    expect(toEnvelope(new ConflictError('exists'), request).body.errors[0]?.code).toBe('CONFLICT');
    expect(toEnvelope(new ForbiddenError(), request).status).toBe(403);
    expect(toEnvelope(new InvalidError('bad key', 'INVALID_KEY'), request).body.errors[0]?.code).toBe(
      'INVALID_KEY',
    );
  });

  it('hides the message of a 5xx and names the request id instead', () => {
    const { status, body } = toEnvelope(
      new Error('password authentication failed for user granary'),
      request,
    );
    expect(status).toBe(500);
    expect(body.errors[0]).toEqual({
      status: 500,
      code: 'INTERNAL',
      message: 'Internal server error (request req-1)',
    });
  });

  it('issue 12 §21: a zod error a service lets through is a 400 naming each field, not a 500', () => {
    const schema = z.object({
      name: z.string().regex(/^\w+$/, 'Name may contain letters'),
      size: z.number(),
    });
    const failed = schema.safeParse({ name: 'a b', size: 'big' });
    expect(failed.success).toBe(false);
    const { status, body } = toEnvelope(failed.error, request);
    expect(status).toBe(400);
    expect(body.errors[0]).toEqual({
      status: 400,
      code: 'INVALID',
      message: 'name: Name may contain letters; size: Invalid input: expected number, received string',
    });
  });

  it('issue 12 §21: validField names the field it checks, and its error is a 400', () => {
    expect(validField('name', z.string().max(3), 'abc')).toBe('abc');
    let thrown: unknown;
    try {
      validField('name', z.string().max(3), 'abcd');
    } catch (err) {
      thrown = err;
    }
    expect(thrown).toEqual(new InvalidError('name: Too big: expected string to have <=3 characters'));
    expect(toEnvelope(thrown, request).status).toBe(400);
  });
});

describe('issue 13 §6: the one handler answers domain errors through the table', () => {
  async function appWith(throwing: Record<string, Error>, renderers: ErrorRenderer[] = []) {
    const lines: string[] = [];
    const logger = pino({ level: 'info' }, { write: (line: string) => lines.push(line) });
    const app = Fastify({ loggerInstance: logger as FastifyBaseLogger });
    registerErrorHandling(app);
    app.errorRenderers.push(...renderers);
    for (const [url, error] of Object.entries(throwing))
      app.get(url, async () => {
        throw error;
      });
    await app.ready();
    const logged = () => lines.map((line) => JSON.parse(line) as Record<string, unknown>);
    return { app, logged };
  }

  it('issue 13 §6: a NotFoundError, ConflictError or RateLimitedError from a service answers 404, 409, 429 with the envelope and its headers', async () => {
    const { app } = await appWith({
      '/missing': new NotFoundError("Repository 'x' not found"),
      '/taken': new ConflictError('A repository with this key exists', 'ALREADY_EXISTS'),
      '/busy': new RateLimitedError('Too many at once', undefined, { headers: { 'retry-after': '5' } }),
    });
    const missing = await app.inject({ url: '/missing' });
    expect(missing.statusCode).toBe(404);
    expect(missing.json()).toEqual({
      errors: [{ status: 404, code: 'NOT_FOUND', message: "Repository 'x' not found" }],
    });
    const taken = await app.inject({ url: '/taken' });
    expect(taken.statusCode).toBe(409);
    expect(taken.json()).toEqual({
      errors: [{ status: 409, code: 'ALREADY_EXISTS', message: 'A repository with this key exists' }],
    });
    const busy = await app.inject({ url: '/busy' });
    expect(busy.statusCode).toBe(429);
    expect(busy.headers['retry-after']).toBe('5');
    expect(busy.json().errors[0]).toEqual({
      status: 429,
      code: 'TOO_MANY_REQUESTS',
      message: 'Too many at once',
    });
    await app.close();
  });

  it('issue 13 §6: an error renderer that throws is logged at error level with the original error, and the client gets the envelope', async () => {
    const { app, logged } = await appWith({ '/missing': new NotFoundError('no such package') }, [
      async () => {
        throw new Error('renderer broke');
      },
    ]);
    const res = await app.inject({ url: '/missing' });
    expect(res.statusCode).toBe(404);
    expect(res.json()).toEqual({ errors: [{ status: 404, code: 'NOT_FOUND', message: 'no such package' }] });
    const failure = logged().find((l) => l.msg === 'error renderer failed; answering with the core envelope');
    expect(failure).toMatchObject({
      level: 50,
      err: { message: 'renderer broke' },
      error: { type: 'NotFoundError', message: 'no such package', code: 'NOT_FOUND' },
    });
    await app.close();
  });
});
