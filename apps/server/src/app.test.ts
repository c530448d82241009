import { readdirSync, readFileSync, statSync } from 'node:fs';
import { mkdir, rm, writeFile } from 'node:fs/promises';
import path from 'node:path';
import { errorEnvelopeSchema, versionSchema } from '@granary/contracts';
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { readVersion } from './modules/system/version.ts';
import {
  basicAuth,
  createTestApp,
  makeTempHome,
  TEST_ADMIN_PASSWORD,
  type TestApp,
  testEngine,
} from './testing/index.ts';

describe(`HTTP platform (${testEngine})`, () => {
  let t: TestApp;
  beforeAll(async () => {
    t = await createTestApp();
  });
  afterAll(async () => {
    await t?.close();
  });

  it('runtime contract: GET /api/system/ping answers 200 with body OK', async () => {
    const res = await t.app.inject({ method: 'GET', url: '/api/system/ping' });
    expect(res.statusCode).toBe(200);
    expect(res.body).toBe('OK');
    expect(res.headers['content-type']).toMatch(/^text\/plain/);
  });

  it('runtime contract: GET /api/system/version answers {version, revision}, also at the console API (spec 000 §7 system/version)', async () => {
    for (const url of ['/api/system/version', '/ui/api/v1/system/version']) {
      const res = await t.app.inject({ method: 'GET', url });
      expect(res.statusCode).toBe(200);
      const body = versionSchema.parse(res.json());
      expect(body.version).toMatch(/^\d+\.\d+\.\d+/);
      // the root package.json's version; the commit from GRANARY_REVISION or .git, else 'unknown'
      expect(body).toEqual(readVersion());
    }
  });

  it('every answer carries a request id; a sane incoming X-Request-Id is kept', async () => {
    const a = await t.app.inject({ method: 'GET', url: '/api/system/ping' });
    expect(a.headers['x-request-id']).toMatch(/^[0-9a-f-]{36}$/);
    const b = await t.app.inject({
      method: 'GET',
      url: '/api/system/ping',
      headers: { 'x-request-id': 'abc-123' },
    });
    expect(b.headers['x-request-id']).toBe('abc-123');
    const c = await t.app.inject({
      method: 'GET',
      url: '/api/system/ping',
      headers: { 'x-request-id': 'bad id<script>' },
    });
    expect(c.headers['x-request-id']).not.toContain('<');
  });

  it('unknown routes answer the error envelope {errors:[{status, code, message}]} with a stable code', async () => {
    for (const url of ['/api/nope', '/ui/api/v1/nope/at/all']) {
      const res = await t.app.inject({ method: 'GET', url });
      expect(res.statusCode).toBe(404);
      const body = errorEnvelopeSchema.parse(res.json());
      expect(body.errors[0]).toMatchObject({ status: 404, code: 'NOT_FOUND' });
    }
  });

  it('a body over the limit is refused with 413 in the envelope', async () => {
    const small = await createTestApp({ bodyLimitBytes: 2048 });
    try {
      const res = await small.app.inject({
        method: 'POST',
        url: '/ui/api/v1/anything',
        headers: { 'content-type': 'application/json' },
        payload: JSON.stringify({ x: 'y'.repeat(5000) }),
      });
      expect(res.statusCode).toBe(413);
      expect(errorEnvelopeSchema.parse(res.json()).errors[0]?.code).toBe('PAYLOAD_TOO_LARGE');
    } finally {
      await small.close();
    }
  });

  it('OpenAPI is generated from the route schemas at /api/openapi.json and browsable at /api/docs', async () => {
    const spec = (await t.app.inject({ method: 'GET', url: '/api/openapi.json' })).json();
    expect(spec.openapi).toMatch(/^3\./);
    expect(Object.keys(spec.paths)).toEqual(
      expect.arrayContaining(['/api/system/ping', '/api/system/version', '/api/security/users']),
    );
    expect(
      spec.paths['/api/system/version'].get.responses['200'].content['application/json'].schema,
    ).toMatchObject({
      type: 'object',
      properties: { version: { type: 'string' }, revision: { type: 'string' } },
      required: ['version', 'revision'],
    });
    const docs = await t.app.inject({ method: 'GET', url: '/api/docs/' });
    expect(docs.statusCode).toBe(200);
    expect(docs.headers['content-type']).toMatch(/text\/html/);
    expect(docs.body).toContain('swagger');
  });

  it('a route needing an admin refuses anonymous callers with 401 and a Basic challenge', async () => {
    const res = await t.app.inject({ method: 'GET', url: '/api/security/users' });
    expect(res.statusCode).toBe(401);
    expect(res.headers['www-authenticate']).toMatch(/^Basic realm=/);
    expect(errorEnvelopeSchema.parse(res.json()).errors[0]?.code).toBe('UNAUTHORIZED');
  });

  it('the Basic challenge goes to clients, never to the console (a browser would open its own sign-in dialog)', async () => {
    const console1 = await t.app.inject({ method: 'GET', url: '/ui/api/v1/ui/auth/current/nope' });
    expect(console1.headers['www-authenticate']).toBeUndefined();
    const xhr = await t.app.inject({
      method: 'GET',
      url: '/api/security/users',
      headers: { 'x-requested-with': 'XMLHttpRequest' },
    });
    expect(xhr.statusCode).toBe(401);
    expect(xhr.headers['www-authenticate']).toBeUndefined();
    const badLogin = await t.app.inject({
      method: 'POST',
      url: '/ui/api/v1/ui/auth/login',
      payload: { user: 'admin', password: 'wrong', type: 'login' },
    });
    expect(badLogin.statusCode).toBe(401);
    expect(badLogin.headers['www-authenticate']).toBeUndefined();
  });

  it('first admin: admin signs in with GRANARY_ADMIN_PASSWORD over HTTP Basic (name case-insensitive)', async () => {
    for (const name of ['admin', 'Admin']) {
      const res = await t.app.inject({
        method: 'GET',
        url: '/api/security/users',
        headers: { authorization: basicAuth(name, TEST_ADMIN_PASSWORD) },
      });
      expect(res.statusCode).toBe(200);
      expect(res.json()).toEqual([expect.objectContaining({ name: 'admin', realm: 'internal' })]);
    }
  });

  it('wrong credentials are 401 even on a public route, and say nothing of whether the user exists', async () => {
    const wrongPassword = await t.app.inject({
      method: 'GET',
      url: '/api/system/ping',
      headers: { authorization: basicAuth('admin', 'nope') },
    });
    const noSuchUser = await t.app.inject({
      method: 'GET',
      url: '/api/system/ping',
      headers: { authorization: basicAuth('ghost', 'nope') },
    });
    expect(wrongPassword.statusCode).toBe(401);
    expect(noSuchUser.statusCode).toBe(401);
    expect(wrongPassword.json()).toEqual(noSuchUser.json());
  });
});

describe('first admin with a generated password', () => {
  it('is printed once, written to $GRANARY_HOME/initial-admin-password (mode 0600), works, and is not made again on restart', async () => {
    const home = await makeTempHome();
    const printed: string[] = [];
    const first = await createTestApp({ adminPassword: undefined }, { home, print: (l) => printed.push(l) });
    let password: string;
    try {
      const file = path.join(home, 'initial-admin-password');
      expect(statSync(file).mode & 0o777).toBe(0o600);
      password = readFileSync(file, 'utf8').trim();
      expect(password.length).toBeGreaterThanOrEqual(20);
      expect(printed).toHaveLength(1);
      expect(printed[0]).toContain(password);
      const res = await first.app.inject({
        method: 'GET',
        url: '/api/security/users',
        headers: { authorization: basicAuth('admin', password) },
      });
      expect(res.statusCode).toBe(200);
      first.app.granary.logging.flush();
      for (const log of readdirSync(path.join(home, 'logs'))) {
        expect(readFileSync(path.join(home, 'logs', log), 'utf8')).not.toContain(password);
      }
    } finally {
      await first.close();
    }
    await rm(home, { recursive: true, force: true });
  });
});

describe('no secret in any log file', () => {
  it('after signing in with a known password, a token, a cookie and a secret query string, no log file holds them', async () => {
    const t = await createTestApp();
    try {
      const token = 'tok_9f8e7d6c5b4a39281706';
      const requests = [
        { url: '/api/security/users', headers: { authorization: basicAuth('admin', TEST_ADMIN_PASSWORD) } },
        {
          url: '/api/security/users',
          headers: { authorization: basicAuth('admin', `${TEST_ADMIN_PASSWORD}x`) },
        },
        { url: '/api/system/ping', headers: { authorization: `Bearer ${token}` } },
        {
          url: `/api/system/ping?token=${token}&password=${TEST_ADMIN_PASSWORD}`,
          headers: { cookie: `SESSION=${token}` },
        },
      ];
      for (const r of requests) await t.app.inject({ method: 'GET', ...r });
      t.app.granary.logging.flush();
      await new Promise((r) => setTimeout(r, 50));
      const dir = path.join(t.home, 'logs');
      const text = readdirSync(dir)
        .map((f) => readFileSync(path.join(dir, f), 'utf8'))
        .join('\n');
      // the logs did record the requests and the sign-ins…
      expect(text).toContain('"event":"auth.success"');
      expect(text).toContain('"event":"auth.failure"');
      expect(text).toContain('/api/system/ping?token=[redacted]');
      // …but none of the secrets
      for (const secret of [
        TEST_ADMIN_PASSWORD,
        token,
        Buffer.from(`admin:${TEST_ADMIN_PASSWORD}`).toString('base64'),
        encodeURIComponent(TEST_ADMIN_PASSWORD),
      ]) {
        expect(text).not.toContain(secret);
      }
    } finally {
      await t.close();
    }
  });
});

describe('console at /ui/', () => {
  let t: TestApp;
  let dir: string;
  beforeAll(async () => {
    const home = await makeTempHome();
    dir = path.join(home, 'console');
    await mkdir(path.join(dir, 'js'), { recursive: true });
    await writeFile(
      path.join(dir, 'index.html'),
      '<!doctype html><title>Granary</title><div id="root"></div>',
    );
    await writeFile(path.join(dir, 'js', 'index-abc123.js'), 'console.log(1)');
    await writeFile(path.join(dir, 'favicon.svg'), '<svg/>');
    t = await createTestApp({ consoleDir: dir }, { home });
  });
  afterAll(async () => {
    await t?.close();
    await rm(path.dirname(dir), { recursive: true, force: true });
  });

  it('serves index.html at /ui/ and for any unknown path under it (history fallback), never cached', async () => {
    for (const url of ['/ui/', '/ui/packages/npm:lodash/4.17.21', '/ui/admin/repositories?x=1']) {
      const res = await t.app.inject({ method: 'GET', url });
      expect(res.statusCode).toBe(200);
      expect(res.headers['content-type']).toMatch(/text\/html/);
      expect(res.body).toContain('<div id="root">');
      expect(res.headers['cache-control']).toBe('no-cache');
    }
  });

  it('serves hashed assets with long cache headers, and a missing chunk is 404 (not index.html)', async () => {
    const js = await t.app.inject({ method: 'GET', url: '/ui/js/index-abc123.js' });
    expect(js.statusCode).toBe(200);
    expect(js.body).toBe('console.log(1)');
    expect(js.headers['cache-control']).toBe('public, max-age=31536000, immutable');
    const missing = await t.app.inject({ method: 'GET', url: '/ui/js/index-gone.js' });
    expect(missing.statusCode).toBe(404);
  });

  it('/ui redirects to /ui/; traversal out of the console folder is not served', async () => {
    const res = await t.app.inject({ method: 'GET', url: '/ui' });
    expect(res.statusCode).toBe(302);
    expect(res.headers.location).toBe('/ui/');
    const trav = await t.app.inject({ method: 'GET', url: '/ui/../../etc/passwd' });
    expect(trav.body).not.toContain('root:');
    const enc = await t.app.inject({ method: 'GET', url: '/ui/%2e%2e/%2e%2e/etc/passwd' });
    expect(enc.body).not.toContain('root:');
  });
});
