import { tokenCreateResponseSchema } from '@granary/contracts';
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import type { Principal } from '../../platform/http/access-control.ts';
import {
  basicAuth,
  createTestApp,
  createTestDatabasePair,
  TEST_ADMIN_PASSWORD,
  type TestApp,
  testEngine,
} from '../../testing/index.ts';
import { CredentialCache } from './credential-cache.ts';

const ADMIN = basicAuth('admin', TEST_ADMIN_PASSWORD);
const PW = 'Cache-pa55word!';

describe('issue 12 §19: the credential cache', () => {
  it('issue 12 §19: an entry never outlives the token it holds, nor its own lifetime', () => {
    let now = 1_000_000;
    const cache = new CredentialCache({ ttlMs: 60_000, now: () => now });
    const who: Principal = { id: 'u', name: 'eve', admin: false };
    cache.set('Bearer short', { ...who, tokenExpiresAt: now + 5_000 });
    cache.set('Bearer long', who);
    cache.set('Bearer gone', { ...who, tokenExpiresAt: now });
    expect(cache.get('Bearer short')?.name).toBe('eve');
    expect(cache.get('Bearer gone')).toBeUndefined();
    now += 5_000;
    expect(cache.get('Bearer short')).toBeUndefined();
    expect(cache.get('Bearer long')?.name).toBe('eve');
    now += 55_000;
    expect(cache.get('Bearer long')).toBeUndefined();
  });
});

describe(`issue 12 §19: an expired token stops working at its expiry, cached or not (${testEngine})`, () => {
  let t: TestApp;
  let now = Date.now();
  beforeAll(async () => {
    t = await createTestApp({}, { now: () => now });
    const res = await t.app.inject({
      method: 'PUT',
      url: '/api/security/users/eve',
      headers: { authorization: ADMIN },
      payload: { password: PW, email: 'eve@example.com' },
    });
    expect(res.statusCode).toBe(201);
  });
  afterAll(async () => {
    await t?.close();
  });

  it('issue 12 §19: a 10-second token answered 200 (and was cached) is refused with 401 one second after it expires', async () => {
    const created = await t.app.inject({
      method: 'POST',
      url: '/api/security/tokens',
      headers: { authorization: basicAuth('eve', PW) },
      payload: { expires_in: 10 },
    });
    expect(created.statusCode, created.body).toBe(200);
    const bearer = `Bearer ${tokenCreateResponseSchema.parse(created.json()).access_token}`;
    const list = () => t.app.inject({ url: '/api/security/tokens', headers: { authorization: bearer } });
    expect((await list()).statusCode).toBe(200);
    now += 9_000;
    expect((await list()).statusCode).toBe(200);
    now += 2_000;
    expect((await list()).statusCode).toBe(401);
  });
});

describe(`issue 12 §19: two nodes on one database drop each other's cached credentials at once (${testEngine})`, () => {
  let a: TestApp;
  let b: TestApp;
  beforeAll(async () => {
    const [first, second] = await createTestDatabasePair();
    a = await createTestApp({}, { database: first });
    b = await createTestApp({}, { database: second });
    for (const [method, url, payload] of [
      ['PUT', '/api/security/users/eve', { password: PW, email: 'eve@example.com' }],
      ['PUT', '/api/security/users/frank', { password: PW, email: 'frank@example.com' }],
      ['PUT', '/api/security/groups/readers', { members: ['eve'] }],
      ['PUT', '/api/repositories/files', { rclass: 'local', packageType: 'generic' }],
    ] as const) {
      const res = await a.app.inject({ method, url, headers: { authorization: ADMIN }, payload });
      expect(res.statusCode, `${method} ${url}: ${res.body}`).toBeLessThan(300);
    }
    const put = await a.app.inject({
      method: 'PUT',
      url: '/repository/files/f.txt',
      headers: { authorization: ADMIN, 'content-type': 'application/octet-stream' },
      payload: Buffer.from('hello'),
    });
    expect(put.statusCode).toBe(201);
  });
  afterAll(async () => {
    await a?.close();
    await b?.close();
  });

  /** Status codes node B answers until it answers `want` (or 3 s pass): the cache of a node that did not hear lasts 60 s. */
  async function onB(want: number, request: () => Promise<{ statusCode: number }>): Promise<number> {
    const deadline = Date.now() + 3_000;
    for (;;) {
      const status = (await request()).statusCode;
      if (status === want || Date.now() > deadline) return status;
      await new Promise((r) => setTimeout(r, 25));
    }
  }
  const list = (auth: string) => () =>
    b.app.inject({ url: '/api/security/tokens', headers: { authorization: auth } });
  const mint = async (user: string) => {
    const res = await a.app.inject({
      method: 'POST',
      url: '/api/security/tokens',
      headers: { authorization: basicAuth(user, PW) },
      payload: { expires_in: 3600 },
    });
    expect(res.statusCode, res.body).toBe(200);
    return tokenCreateResponseSchema.parse(res.json());
  };

  it('issue 12 §19: a token revoked on node A is refused by node B, which had it cached', async () => {
    const token = await mint('eve');
    const bearer = `Bearer ${token.access_token}`;
    expect((await list(bearer)()).statusCode).toBe(200);
    expect((await list(bearer)()).statusCode).toBe(200);
    const del = await a.app.inject({
      method: 'DELETE',
      url: `/api/security/tokens/${token.token_id}`,
      headers: { authorization: basicAuth('eve', PW) },
    });
    expect(del.statusCode).toBe(204);
    expect(await onB(401, list(bearer))).toBe(401);
  });

  it('issue 12 §19: disabling a user, changing the password or deleting the user on node A ends their cached credentials on node B', async () => {
    const token = await mint('frank');
    const password = basicAuth('frank', PW);
    const bearer = `Bearer ${token.access_token}`;
    expect((await list(password)()).statusCode).toBe(200);
    expect((await list(bearer)()).statusCode).toBe(200);
    const update = (payload: object) =>
      a.app.inject({
        method: 'POST',
        url: '/api/security/users/frank',
        headers: { authorization: ADMIN },
        payload,
      });
    expect((await update({ disabled: true })).statusCode).toBeLessThan(300);
    expect(await onB(401, list(password))).toBe(401);
    expect(await onB(401, list(bearer))).toBe(401);
    expect((await update({ disabled: false })).statusCode).toBeLessThan(300);
    expect(await onB(200, list(password))).toBe(200);

    expect((await update({ password: 'Other-pa55word!' })).statusCode).toBeLessThan(300);
    expect(await onB(401, list(password))).toBe(401);
    const newPassword = basicAuth('frank', 'Other-pa55word!');
    expect((await list(newPassword)()).statusCode).toBe(200);

    const del = await a.app.inject({
      method: 'DELETE',
      url: '/api/security/users/frank',
      headers: { authorization: ADMIN },
    });
    expect(del.statusCode).toBe(204);
    expect(await onB(401, list(newPassword))).toBe(401);
  });

  it('issue 12 §19: a permission granted or a group membership taken away on node A holds on node B at once', async () => {
    const eve = basicAuth('eve', PW);
    // File info, not the bytes: each test node keeps its blobs in its own temp home.
    const read = () => b.app.inject({ url: '/api/storage/files/f.txt', headers: { authorization: eve } });
    // B has read the (empty) permission targets and cached eve's groups just now.
    expect((await read()).statusCode).toBe(404);
    const grant = await a.app.inject({
      method: 'PUT',
      url: '/api/security/permissions/readers',
      headers: { authorization: ADMIN },
      payload: { repo: { repositories: ['files'], actions: { groups: { readers: ['read'] } } } },
    });
    expect(grant.statusCode).toBe(201);
    expect(await onB(200, read)).toBe(200);
    const leave = await a.app.inject({
      method: 'PUT',
      url: '/api/security/groups/readers',
      headers: { authorization: ADMIN },
      payload: { members: [] },
    });
    expect(leave.statusCode).toBeLessThan(300);
    expect(await onB(404, read)).toBe(404);
  });
});
