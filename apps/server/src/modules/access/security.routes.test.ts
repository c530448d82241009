import { readFileSync } from 'node:fs';
import { errorEnvelopeSchema, groupSchema, permissionTargetSchema, userSchema } from '@granary/contracts';
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import {
  basicAuth,
  createTestApp,
  TEST_ADMIN_PASSWORD,
  type TestApp,
  testEngine,
} from '../../testing/index.ts';

const ADMIN = basicAuth('admin', TEST_ADMIN_PASSWORD);
const PW = 'Alice-pa55word';

describe(`access REST API: users, groups, permission targets (${testEngine})`, () => {
  let t: TestApp;
  const adminRoutes: { method: string; url: string }[] = [];
  beforeAll(async () => {
    t = await createTestApp();
  });
  afterAll(async () => {
    await t?.close();
  });
  const put = (url: string, payload: unknown, auth = ADMIN) =>
    t.app.inject({ method: 'PUT', url, headers: { authorization: auth }, payload: payload as object });

  it('DESIGN Public REST API: PUT /api/security/users/{name} creates (201) with {name, email, admin, disabled, groups}; GET answers it without the password', async () => {
    const res = await put('/api/security/users/alice', { email: 'alice@example.com', password: PW });
    expect(res.statusCode).toBe(201);
    const got = await t.app.inject({ url: '/api/security/users/alice', headers: { authorization: ADMIN } });
    const user = userSchema.parse(got.json());
    expect(user).toMatchObject({
      name: 'alice',
      email: 'alice@example.com',
      admin: false,
      disabled: false,
      locked: false,
      passwordExpired: false,
      groups: [],
    });
    expect(got.body).not.toContain(PW);
    expect(got.body).not.toContain('argon2');
    const list = await t.app.inject({ url: '/api/security/users', headers: { authorization: ADMIN } });
    expect(list.json().map((u: { name: string }) => u.name)).toEqual(['admin', 'alice']);
  });

  it('unknown fields in a body are refused with 400 (users, groups, permissions)', async () => {
    for (const [url, body] of [
      ['/api/security/users/bob', { password: PW, superuser: true }],
      ['/api/security/groups/g', { description: 'x', owner: 'me' }],
      ['/api/security/permissions/p', { repo: { repositories: ['ANY'], actions: { users: {} }, extra: 1 } }],
    ] as const) {
      const res = await put(url, body);
      expect(res.statusCode, url).toBe(400);
      expect(errorEnvelopeSchema.parse(res.json()).errors[0]?.code).toBe('INVALID');
    }
  });

  it('password policy: at least 8 characters and 3 character classes by default, with the policy message', async () => {
    const short = await put('/api/security/users/bob', { password: 'Ab1!' });
    expect(short.statusCode).toBe(400);
    expect(short.json().errors[0].message).toContain('Password must be at least 8 characters');
    const weak = await put('/api/security/users/bob', { password: 'alllowercase' });
    expect(weak.statusCode).toBe(400);
    expect(weak.json().errors[0].message).toContain('Password must contain at least 3 of');
    const patch = await t.app.inject({
      method: 'PATCH',
      url: '/api/security/configuration',
      headers: { authorization: ADMIN },
      payload: { passwordPolicy: { minLength: 4, minClasses: 1 } },
    });
    expect(patch.statusCode).toBe(200);
    expect((await put('/api/security/users/bob', { password: 'abcd' })).statusCode).toBe(201);
    await t.app.inject({
      method: 'PATCH',
      url: '/api/security/configuration',
      headers: { authorization: ADMIN },
      payload: { passwordPolicy: { minLength: 8, minClasses: 3 } },
    });
  });

  it('passwords are stored as argon2id with m ≥ 19 MiB and t = 2', async () => {
    const { users } = await import('./access.schema.ts');
    const { eq } = await import('drizzle-orm');
    const rows = await t.app.granary.database.db.select().from(users).where(eq(users.name, 'alice'));
    const m = /^\$argon2id\$v=19\$m=(\d+),t=(\d+),p=\d+\$/.exec(rows[0]!.passwordHash!);
    expect(m).not.toBeNull();
    expect(Number(m![1])).toBeGreaterThanOrEqual(19 * 1024);
    expect(Number(m![2])).toBeGreaterThanOrEqual(2);
  });

  it('DESIGN Public REST API: groups {name, description, adminPrivileges, autoJoin, members[]}; an admin-privileged group makes its members admins', async () => {
    const res = await put('/api/security/groups/ops', {
      description: 'Operators',
      adminPrivileges: true,
      members: ['alice'],
    });
    expect(res.statusCode).toBe(201);
    expect(groupSchema.parse(res.json())).toMatchObject({
      name: 'ops',
      adminPrivileges: true,
      autoJoin: false,
      members: ['alice'],
    });
    const alice = basicAuth('alice', PW);
    expect(
      (await t.app.inject({ url: '/api/security/users', headers: { authorization: alice } })).statusCode,
    ).toBe(200);
    await put('/api/security/groups/ops', { members: [] });
    expect(
      (await t.app.inject({ url: '/api/security/users', headers: { authorization: alice } })).statusCode,
    ).toBe(403);
    const user = userSchema.parse(
      (await t.app.inject({ url: '/api/security/users/alice', headers: { authorization: ADMIN } })).json(),
    );
    expect(user.groups).toEqual([]);
  });

  it('groups: autoJoin groups are joined by new users; unknown members are refused; DELETE removes', async () => {
    await put('/api/security/groups/everyone', { autoJoin: true });
    await put('/api/security/users/carol', { password: PW });
    const carol = userSchema.parse(
      (await t.app.inject({ url: '/api/security/users/carol', headers: { authorization: ADMIN } })).json(),
    );
    expect(carol.groups).toEqual(['everyone']);
    expect((await put('/api/security/groups/x', { members: ['nobody'] })).statusCode).toBe(400);
    const del = await t.app.inject({
      method: 'DELETE',
      url: '/api/security/groups/everyone',
      headers: { authorization: ADMIN },
    });
    expect(del.statusCode).toBe(204);
    expect(
      (await t.app.inject({ url: '/api/security/groups/everyone', headers: { authorization: ADMIN } }))
        .statusCode,
    ).toBe(404);
  });

  it('DESIGN Public REST API: permission targets round-trip {name, repo:{repositories, include_patterns, exclude_patterns, actions:{users, groups}}}', async () => {
    const body = {
      name: 'libs',
      repo: {
        repositories: ['ANY LOCAL', 'libs-remote'],
        include_patterns: ['org/**'],
        exclude_patterns: ['org/secret/**'],
        actions: { users: { alice: ['read', 'write'] }, groups: {} },
      },
    };
    const res = await put('/api/security/permissions/libs', body);
    expect(res.statusCode).toBe(201);
    const got = await t.app.inject({
      url: '/api/security/permissions/libs',
      headers: { authorization: ADMIN },
    });
    expect(permissionTargetSchema.parse(got.json())).toEqual(body);
    expect(
      (
        await put('/api/security/permissions/bad', {
          repo: { repositories: ['ANY'], actions: { users: { ghost: ['read'] } } },
        })
      ).statusCode,
    ).toBe(400);
    const list = await t.app.inject({ url: '/api/security/permissions', headers: { authorization: ADMIN } });
    expect(list.json().map((p: { name: string }) => p.name)).toEqual(['libs']);
  });

  it('the last enabled administrator cannot be deleted, disabled or demoted', async () => {
    const del = await t.app.inject({
      method: 'DELETE',
      url: '/api/security/users/admin',
      headers: { authorization: ADMIN },
    });
    expect(del.statusCode).toBe(409);
    expect((await put('/api/security/users/admin', { admin: false })).statusCode).toBe(409);
  });

  it('a disabled user can no longer sign in, at once (the credential cache is cleared)', async () => {
    await put('/api/security/users/dave', { password: PW });
    const dave = basicAuth('dave', PW);
    expect(
      (await t.app.inject({ url: '/api/security/tokens', headers: { authorization: dave } })).statusCode,
    ).toBe(200);
    await put('/api/security/users/dave', { disabled: true });
    const res = await t.app.inject({ url: '/api/security/tokens', headers: { authorization: dave } });
    expect(res.statusCode).toBe(401);
    expect(res.json().errors[0].message).toBe('Bad credentials');
  });

  it('route × role: a regular user gets 403 and an anonymous caller 401 on every admin route of the app', async () => {
    for (const r of t.app.routeAccessTable)
      if (r.access === 'admin' && r.method !== 'HEAD') adminRoutes.push(r);
    expect(adminRoutes.length).toBeGreaterThan(15);
    const alice = basicAuth('alice', PW);
    for (const { method, url } of adminRoutes) {
      const path = url.replace(/:[A-Za-z]+/g, 'x').replace(/\*$/, 'x');
      const asUser = await t.app.inject({
        method: method as 'GET',
        url: path,
        headers: { authorization: alice },
        payload: method === 'GET' || method === 'HEAD' ? undefined : {},
      });
      expect(asUser.statusCode, `${method} ${url} as a regular user`).toBe(403);
      const anon = await t.app.inject({ method: method as 'GET', url: path });
      expect(anon.statusCode, `${method} ${url} anonymously`).toBe(401);
    }
  });

  it('no password, token or session id reaches any log file', async () => {
    t.app.granary.logging.flush();
    const dir = t.app.granary.logging.dir;
    for (const file of ['server.log', 'request.log', 'security.log']) {
      const text = readFileSync(`${dir}/${file}`, 'utf8');
      expect(text).not.toContain(PW);
      expect(text).not.toContain(TEST_ADMIN_PASSWORD);
    }
    expect(readFileSync(`${dir}/security.log`, 'utf8')).toContain('user.create');
  });
});
