import type { FastifyRequest } from 'fastify';
import { describe, expect, it } from 'vitest';
import { z } from 'zod';
import { toEnvelope } from './error-handler.ts';
import { ConflictError, ForbiddenError, InvalidError, NotFoundError, validField } from './errors.ts';

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
