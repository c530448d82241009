import { ErrorCode, versionSchema } from '@granary/contracts';
import { HttpResponse, http } from 'msw';
import { describe, expect, it } from 'vitest';
import { z } from 'zod';
import { server } from '../test/server.ts';
import { ApiError, ClientErrorCode } from './ApiError.ts';
import { api, apiRequest, CSRF_HEADER, consoleApiUrl } from './client.ts';

const url = (path: string) => `http://localhost/ui/api/v1/${path}`;

async function failure(promise: Promise<unknown>): Promise<ApiError> {
  const error = await promise.then(
    () => undefined,
    (e: unknown) => e,
  );
  expect(error).toBeInstanceOf(ApiError);
  return error as ApiError;
}

describe('console API client', () => {
  it('mounts spec call paths under /ui/api/v1/ with the leading slash dropped', () => {
    expect(consoleApiUrl('system/version')).toBe('/ui/api/v1/system/version');
    expect(consoleApiUrl('/ui/auth/login')).toBe('/ui/api/v1/ui/auth/login');
    expect(consoleApiUrl('ui/auth/login', { _spring_security_remember_me: true, skip: undefined })).toBe(
      '/ui/api/v1/ui/auth/login?_spring_security_remember_me=true',
    );
    expect(consoleApiUrl('search', { repo: ['a', 'b'] })).toBe('/ui/api/v1/search?repo=a&repo=b');
  });

  it('GETs JSON with the session cookie and returns the answer validated by the contract schema', async () => {
    let seen: Request | undefined;
    server.use(
      http.get(url('system/version'), ({ request }) => {
        seen = request;
        return HttpResponse.json({ version: '1.2.3', revision: 'abc123', extra: 'ignored' });
      }),
    );

    await expect(api.get('system/version', versionSchema)).resolves.toEqual({
      version: '1.2.3',
      revision: 'abc123',
    });
    expect(seen?.credentials).toBe('same-origin');
    expect(seen?.headers.get('accept')).toBe('application/json');
    expect(seen?.headers.get(CSRF_HEADER)).toBeNull();
  });

  it('turns a 2xx answer that breaks the contract into an ApiError naming the field', async () => {
    server.use(http.get(url('system/version'), () => HttpResponse.json({ version: 7 })));

    const error = await failure(api.get('system/version', versionSchema));
    expect(error.status).toBe(200);
    expect(error.code).toBe(ClientErrorCode.InvalidResponse);
    expect(error.message).toMatch(/^Unexpected answer from the server: version: /);
  });

  it('turns the error envelope into an ApiError with status, code, message and every error', async () => {
    server.use(
      http.get(url('repositories/missing'), () =>
        HttpResponse.json(
          {
            errors: [
              { status: 404, code: 'NOT_FOUND', message: 'Repository missing not found' },
              { status: 404, code: 'NOT_FOUND', message: 'Second detail' },
            ],
          },
          { status: 404 },
        ),
      ),
    );

    const error = await failure(api.get('repositories/missing', z.unknown()));
    expect(error.status).toBe(404);
    expect(error.code).toBe(ErrorCode.NotFound);
    expect(error.message).toBe('Repository missing not found; Second detail');
    expect(error.errors).toHaveLength(2);
    expect(error.errors[1]).toEqual({ status: 404, code: 'NOT_FOUND', message: 'Second detail' });
  });

  it('falls back to the status when the error body is not the envelope', async () => {
    server.use(
      http.get(
        url('a'),
        () =>
          new HttpResponse('<html>Bad gateway</html>', {
            status: 502,
            headers: { 'content-type': 'text/html' },
          }),
      ),
      http.get(url('b'), () =>
        HttpResponse.json(
          { statusCode: 400, error: 'Bad Request', message: 'body/name is required' },
          { status: 400 },
        ),
      ),
      http.get(
        url('c'),
        () => new HttpResponse('Too many logins', { status: 429, headers: { 'content-type': 'text/plain' } }),
      ),
    );

    const html = await failure(apiRequest('a'));
    expect([html.status, html.code, html.message]).toEqual([
      502,
      ErrorCode.Unavailable,
      'Request failed with status 502 Bad Gateway',
    ]);
    const fastify = await failure(apiRequest('b'));
    expect([fastify.status, fastify.code, fastify.message]).toEqual([
      400,
      ErrorCode.BadRequest,
      'body/name is required',
    ]);
    const text = await failure(apiRequest('c'));
    expect([text.status, text.code, text.message]).toEqual([
      429,
      ErrorCode.TooManyRequests,
      'Too many logins',
    ]);
  });

  it('reports an unreachable server as a network ApiError', async () => {
    server.use(http.get(url('system/version'), () => HttpResponse.error()));

    const error = await failure(api.get('system/version', versionSchema));
    expect([error.status, error.code]).toEqual([0, ClientErrorCode.Network]);
  });

  it('sends JSON and the CSRF header on state-changing calls', async () => {
    let seen: { csrf: string | null; type: string | null; body: unknown; method: string } | undefined;
    const record = async ({ request }: { request: Request }) => {
      seen = {
        csrf: request.headers.get(CSRF_HEADER),
        type: request.headers.get('content-type'),
        body: await request.json(),
        method: request.method,
      };
      return HttpResponse.json({ ok: true });
    };
    server.use(http.post(url('ui/auth/login'), record), http.put(url('things/x'), record));

    const answer = await api.post(
      'ui/auth/login',
      { user: 'admin', password: 'secret', type: 'login' },
      z.object({ ok: z.boolean() }),
    );
    expect(answer).toEqual({ ok: true });
    expect(seen).toEqual({
      csrf: '1',
      type: 'application/json',
      body: { user: 'admin', password: 'secret', type: 'login' },
      method: 'POST',
    });

    await api.put('things/x', { a: 1 });
    expect(seen?.method).toBe('PUT');
    expect(seen?.csrf).toBe('1');
  });

  it('sends the CSRF header on a DELETE without a body, and resolves to undefined without a schema', async () => {
    let csrf: string | null = null;
    server.use(
      http.delete(url('things/x'), ({ request }) => {
        csrf = request.headers.get(CSRF_HEADER);
        return new HttpResponse(null, { status: 204 });
      }),
    );

    await expect(api.delete('things/x')).resolves.toBeUndefined();
    expect(csrf).toBe('1');
  });
});
