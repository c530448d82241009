import { tokenCreateResponseSchema } from '@granary/contracts';
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import {
  basicAuth,
  createTestApp,
  TEST_ADMIN_PASSWORD,
  type TestApp,
  testEngine,
} from '../../testing/index.ts';

const ADMIN = basicAuth('admin', TEST_ADMIN_PASSWORD);
const PW = 'Scope-pa55word!';
const BOSS = basicAuth('boss', PW);
const DEV = basicAuth('dev', PW);

describe(`issue 12 §18: token scopes are enforced on every route (${testEngine})`, () => {
  let t: TestApp;
  const call = (method: string, url: string, authorization: string, payload?: object) =>
    t.app.inject({
      method: method as 'GET',
      url,
      headers: { authorization },
      ...(payload ? { payload } : {}),
    });
  const mint = async (authorization: string, payload: object) => {
    const res = await call('POST', '/api/security/tokens', authorization, { expires_in: 3600, ...payload });
    expect(res.statusCode, res.body).toBe(200);
    return tokenCreateResponseSchema.parse(res.json());
  };
  const bearer = (token: { access_token: string }) => `Bearer ${token.access_token}`;

  beforeAll(async () => {
    t = await createTestApp();
    const setup = async (method: string, url: string, payload: object) => {
      const res = await call(method, url, ADMIN, payload);
      expect(res.statusCode, `${method} ${url}: ${res.body}`).toBeLessThan(300);
    };
    // boss is an administrator; dev is not. Both are in g-alpha; only dev is in g-beta.
    await setup('PUT', '/api/security/users/boss', { password: PW, admin: true, email: 'boss@example.com' });
    await setup('PUT', '/api/security/users/dev', { password: PW, email: 'dev@example.com' });
    await setup('PUT', '/api/security/groups/g-alpha', { members: ['boss', 'dev'] });
    await setup('PUT', '/api/security/groups/g-beta', { members: ['dev'] });
    for (const key of ['alpha', 'beta', 'gamma']) {
      await setup('PUT', `/api/repositories/${key}`, { rclass: 'local', packageType: 'generic' });
      const put = await t.app.inject({
        method: 'PUT',
        url: `/repository/${key}/f.txt`,
        headers: { authorization: ADMIN, 'content-type': 'application/octet-stream' },
        payload: Buffer.from(`in ${key}`),
      });
      expect(put.statusCode, put.body).toBe(201);
    }
    // g-alpha reads and writes alpha; g-beta reads beta; dev himself reads gamma.
    await setup('PUT', '/api/security/permissions/scopes', {
      repo: {
        repositories: ['alpha'],
        actions: { groups: { 'g-alpha': ['read', 'write'] } },
      },
    });
    await setup('PUT', '/api/security/permissions/scopes-beta', {
      repo: { repositories: ['beta'], actions: { groups: { 'g-beta': ['read'] } } },
    });
    await setup('PUT', '/api/security/permissions/scopes-gamma', {
      repo: { repositories: ['gamma'], actions: { users: { dev: ['read'] } } },
    });
  });
  afterAll(async () => {
    await t?.close();
  });

  it('issue 12 §18: an ADMIN user’s user-scoped token gets 403 on admin routes (list users, create repository, PATCH security configuration, mint an admin token or one for another user); an admin-scoped token gets through', async () => {
    const user = bearer(await mint(BOSS, { scope: 'applied-permissions/user' }));
    const admin = bearer(await mint(BOSS, { scope: 'applied-permissions/admin' }));
    const table: [string, string, object | undefined, number][] = [
      ['GET', '/api/security/users', undefined, 200],
      ['PUT', '/api/repositories/made-by-token', { rclass: 'local', packageType: 'generic' }, 201],
      ['PATCH', '/api/security/configuration', { selfRegistration: false }, 200],
      ['POST', '/api/security/tokens', { scope: 'applied-permissions/admin' }, 200],
      ['POST', '/api/security/tokens', { username: 'dev' }, 200],
    ];
    for (const [method, url, payload, allowed] of table) {
      const refused = await call(method, url, user, payload);
      expect(refused.statusCode, `user scope: ${method} ${url} ${JSON.stringify(payload)}`).toBe(403);
      const passed = await call(method, url, admin, payload);
      expect(passed.statusCode, `admin scope: ${method} ${url}: ${passed.body}`).toBe(allowed);
    }
    // The user-scoped token still works for what any signed-in user may do.
    expect((await call('GET', '/api/security/tokens', user)).statusCode).toBe(200);
    // Only an administrator mints an admin-scoped token, and only for an administrator.
    expect(
      (await call('POST', '/api/security/tokens', DEV, { scope: 'applied-permissions/admin' })).statusCode,
    ).toBe(403);
    expect(
      (
        await call('POST', '/api/security/tokens', ADMIN, {
          username: 'dev',
          scope: 'applied-permissions/admin',
        })
      ).statusCode,
    ).toBe(403);
  });

  it('issue 12 §18: every route of the routeAccessTable that needs an admin refuses a user-scoped token of an admin with 403', async () => {
    const user = bearer(await mint(BOSS, { scope: 'applied-permissions/user' }));
    const adminRoutes = t.app.routeAccessTable.filter((r) => r.access === 'admin');
    expect(adminRoutes.length).toBeGreaterThan(20);
    const wrong: string[] = [];
    for (const route of adminRoutes) {
      const url = route.url.replace(/:[A-Za-z0-9_]+(\([^)]*\))?/g, 'x').replace(/\*/g, 'x');
      const res = await t.app.inject({
        method: route.method as 'GET',
        url,
        headers: { authorization: user },
      });
      if (res.statusCode !== 403) wrong.push(`${route.method} ${route.url} → ${res.statusCode}`);
    }
    expect(wrong).toEqual([]);
  });

  it('issue 12 §18: a groups-scoped token reaches only what its groups can — not its owner’s own grants, not admin rights even for an admin', async () => {
    const devAlpha = bearer(await mint(DEV, { scope: 'applied-permissions/groups:g-alpha' }));
    const bossAlpha = bearer(await mint(BOSS, { scope: 'applied-permissions/groups:g-alpha' }));
    const devUser = bearer(await mint(DEV, {}));
    const read = async (auth: string, key: string) =>
      (await call('GET', `/repository/${key}/f.txt`, auth)).statusCode;
    // The user scope has all of dev's reads: his groups' and his own.
    expect([await read(devUser, 'alpha'), await read(devUser, 'beta'), await read(devUser, 'gamma')]).toEqual(
      [200, 200, 200],
    );
    for (const token of [devAlpha, bossAlpha]) {
      const get = await call('GET', '/repository/alpha/f.txt', token);
      expect(get.statusCode).toBe(200);
      expect(get.body).toBe('in alpha');
      expect(await read(token, 'beta')).toBe(404);
      expect(await read(token, 'gamma')).toBe(404);
    }
    const write = await t.app.inject({
      method: 'PUT',
      url: '/repository/alpha/by-group.txt',
      headers: { authorization: devAlpha, 'content-type': 'application/octet-stream' },
      payload: Buffer.from('x'),
    });
    expect(write.statusCode).toBe(201);
    expect((await call('GET', '/api/security/users', bossAlpha)).statusCode).toBe(403);
    // Minting stays inside the caller's groups: no other group, no user scope; no scope means its own.
    expect(
      (await call('POST', '/api/security/tokens', devAlpha, { scope: 'applied-permissions/groups:g-beta' }))
        .statusCode,
    ).toBe(403);
    expect(
      (await call('POST', '/api/security/tokens', devAlpha, { scope: 'applied-permissions/user' }))
        .statusCode,
    ).toBe(403);
    expect((await mint(devAlpha, {})).scope).toBe('applied-permissions/groups:g-alpha');
    // A group the owner is not in is refused when minted.
    expect(
      (await call('POST', '/api/security/tokens', BOSS, { scope: 'applied-permissions/groups:g-beta' }))
        .statusCode,
    ).toBe(400);
  });

  it('issue 12 §18: a read-only token reads but never writes nor mints a writing token; a repository-limited token reaches only its repositories', async () => {
    const readOnly = await mint(DEV, { scope: 'applied-permissions/user granary/read-only' });
    expect(readOnly.scope).toBe('applied-permissions/user granary/read-only');
    const ro = bearer(readOnly);
    expect((await call('GET', '/repository/alpha/f.txt', ro)).statusCode).toBe(200);
    const put = await t.app.inject({
      method: 'PUT',
      url: '/repository/alpha/ro.txt',
      headers: { authorization: ro, 'content-type': 'application/octet-stream' },
      payload: Buffer.from('x'),
    });
    expect(put.statusCode).toBe(403);
    expect((await call('GET', '/repository/alpha/ro.txt', ADMIN)).statusCode).toBe(404);
    expect((await call('POST', '/api/security/tokens', ro, {})).statusCode).toBe(403);

    const limited = bearer(await mint(DEV, { scope: 'applied-permissions/user granary/repositories:alpha' }));
    expect((await call('GET', '/repository/alpha/f.txt', limited)).statusCode).toBe(200);
    expect((await call('GET', '/repository/beta/f.txt', limited)).statusCode).toBe(404);
    expect((await call('GET', '/repository/gamma/f.txt', limited)).statusCode).toBe(404);
    expect(
      (
        await call('POST', '/api/security/tokens', limited, {
          scope: 'applied-permissions/user granary/repositories:alpha,beta',
        })
      ).statusCode,
    ).toBe(403);
    // The admin scope is never repository-limited; an unknown item is named in a 400.
    const bad = await call('POST', '/api/security/tokens', BOSS, {
      scope: 'applied-permissions/admin granary/repositories:alpha',
    });
    expect(bad.statusCode).toBe(400);
    const unknown = await call('POST', '/api/security/tokens', DEV, {
      scope: 'applied-permissions/user write:all',
    });
    expect(unknown.statusCode).toBe(400);
    expect(unknown.body).toContain('write:all');
  });

  it('issue 12 §18: a client login (docker /v2/token) with a scoped token gets a token of the same scope, never wider', async () => {
    await call('PUT', '/api/repositories/docker-local', ADMIN, { rclass: 'local', packageType: 'docker' });
    const user = await mint(BOSS, { scope: 'applied-permissions/user' });
    const res = await t.app.inject({
      url: '/v2/token?service=granary',
      headers: { authorization: basicAuth('boss', user.access_token) },
    });
    expect(res.statusCode, res.body).toBe(200);
    const issued = res.json().token as string;
    expect((await call('GET', '/api/security/users', `Bearer ${issued}`)).statusCode).toBe(403);
    // boss's password is all of boss: an administrator's docker login keeps working as one.
    const byPassword = await t.app.inject({
      url: '/v2/token?service=granary',
      headers: { authorization: BOSS },
    });
    expect((await call('GET', '/api/security/users', `Bearer ${byPassword.json().token}`)).statusCode).toBe(
      200,
    );
  });
});
