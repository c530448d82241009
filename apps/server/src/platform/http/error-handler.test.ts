import type { FastifyRequest } from 'fastify';
import { describe, expect, it } from 'vitest';
import { toEnvelope } from './error-handler.ts';
import { ConflictError, ForbiddenError, InvalidError, NotFoundError } from './errors.ts';

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
});
