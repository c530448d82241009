import { readFileSync } from 'node:fs';
import { PERMISSION_ACTIONS, tokenCreateResponseSchema, tokenListSchema } from '@granary/contracts';
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import {
  basicAuth,
  createTestApp,
  TEST_ADMIN_PASSWORD,
  type TestApp,
  testEngine,
} from '../../testing/index.ts';

const ADMIN = basicAuth('admin', TEST_ADMIN_PASSWORD);
const PW = 'Eve-pa55word!';

describe(`access tokens and the permission question (${testEngine})`, () => {
  let t: TestApp;
  /** The app's clock, when a test holds it (it moves it instead of sleeping); else the wall clock. */
  let held: number | undefined;
  beforeAll(async () => {
    t = await createTestApp({}, { now: () => held ?? Date.now() });
    for (const name of ['eve', 'frank'])
      await t.app.inject({
        method: 'PUT',
        url: `/api/security/users/${name}`,
        headers: { authorization: ADMIN },
        payload: { password: PW },
      });
    await t.app.inject({
      method: 'PUT',
      url: '/api/security/groups/devs',
      headers: { authorization: ADMIN },
      payload: { members: ['frank'] },
    });
  });
  afterAll(async () => {
    await t?.close();
  });
  const newToken = async (auth: string, payload: object = {}) => {
    const res = await t.app.inject({
      method: 'POST',
      url: '/api/security/tokens',
      headers: { authorization: auth },
      payload,
    });
    expect(res.statusCode, res.body).toBe(200);
    return tokenCreateResponseSchema.parse(res.json());
  };
  const whoCanList = (auth: string) =>
    t.app.inject({ url: '/api/security/tokens', headers: { authorization: auth } });

  it('DESIGN Public REST API: POST /api/security/tokens answers {token_id, access_token, expires_in, scope, token_type}; the token works as Bearer and as the Basic password', async () => {
    const token = await newToken(basicAuth('eve', PW), { description: 'ci', expires_in: 3600 });
    expect(token).toMatchObject({
      token_type: 'Bearer',
      scope: 'applied-permissions/user',
      expires_in: 3600,
    });
    expect((await whoCanList(`Bearer ${token.access_token}`)).statusCode).toBe(200);
    expect((await whoCanList(basicAuth('eve', token.access_token))).statusCode).toBe(200);
    // Someone else's name with eve's token is refused.
    expect((await whoCanList(basicAuth('frank', token.access_token))).statusCode).toBe(401);
    const list = tokenListSchema.parse((await whoCanList(basicAuth('eve', PW))).json());
    expect(list.tokens).toEqual([
      expect.objectContaining({ token_id: token.token_id, subject: 'eve', description: 'ci' }),
    ]);
    expect(JSON.stringify(list)).not.toContain(token.access_token);
  });

  it('a revoked token is refused at once; an expired token is refused', async () => {
    const token = await newToken(basicAuth('eve', PW));
    const bearer = `Bearer ${token.access_token}`;
    expect((await whoCanList(bearer)).statusCode).toBe(200);
    const del = await t.app.inject({
      method: 'DELETE',
      url: `/api/security/tokens/${token.token_id}`,
      headers: { authorization: basicAuth('eve', PW) },
    });
    expect(del.statusCode).toBe(204);
    expect((await whoCanList(bearer)).statusCode).toBe(401);
    expect((await whoCanList(basicAuth('eve', token.access_token))).statusCode).toBe(401);

    held = Date.now();
    try {
      const short = await newToken(basicAuth('eve', PW), { expires_in: 1 });
      const shortBearer = `Bearer ${short.access_token}`;
      held += 999;
      expect((await whoCanList(shortBearer)).statusCode).toBe(200);
      held += 1;
      expect((await whoCanList(shortBearer)).statusCode).toBe(401);
      expect((await whoCanList(basicAuth('eve', short.access_token))).statusCode).toBe(401);
    } finally {
      held = undefined;
    }
  });

  it('a token is never more than its owner: a regular user cannot get an admin scope or a token for someone else; a disabled owner’s token stops working', async () => {
    const eve = basicAuth('eve', PW);
    expect(
      (
        await t.app.inject({
          method: 'POST',
          url: '/api/security/tokens',
          headers: { authorization: eve },
          payload: { scope: 'applied-permissions/admin' },
        })
      ).statusCode,
    ).toBe(403);
    expect(
      (
        await t.app.inject({
          method: 'POST',
          url: '/api/security/tokens',
          headers: { authorization: eve },
          payload: { username: 'frank' },
        })
      ).statusCode,
    ).toBe(403);
    const frankToken = await newToken(ADMIN, { username: 'frank' });
    const bearer = `Bearer ${frankToken.access_token}`;
    expect((await whoCanList(bearer)).statusCode).toBe(200);
    expect(
      (await t.app.inject({ url: '/api/security/users', headers: { authorization: bearer } })).statusCode,
    ).toBe(403);
    await t.app.inject({
      method: 'POST',
      url: '/api/security/users/frank',
      headers: { authorization: ADMIN },
      payload: { disabled: true },
    });
    expect((await whoCanList(bearer)).statusCode).toBe(401);
    await t.app.inject({
      method: 'POST',
      url: '/api/security/users/frank',
      headers: { authorization: ADMIN },
      payload: { disabled: false },
    });
  });

  it('spec 000 §7: POST ui/userIdentifyToken/{name} answers reference_token, which then works as a password', async () => {
    const res = await t.app.inject({
      method: 'POST',
      url: '/ui/api/v1/ui/userIdentifyToken/eve',
      headers: { authorization: basicAuth('eve', PW) },
      payload: { description: 'docker', includeReferenceToken: true, expiresIn: 0 },
    });
    expect(res.statusCode).toBe(200);
    const ref = res.json().reference_token as string;
    expect((await whoCanList(basicAuth('eve', ref))).statusCode).toBe(200);
    const other = await t.app.inject({
      method: 'POST',
      url: '/ui/api/v1/ui/userIdentifyToken/frank',
      headers: { authorization: basicAuth('eve', PW) },
      payload: {},
    });
    expect(other.statusCode).toBe(403);
  });

  it('every action on a repository pattern is allowed exactly as granted, per user and per group; include/exclude and ANY LOCAL / ANY REMOTE apply', async () => {
    const put = await t.app.inject({
      method: 'PUT',
      url: '/api/security/permissions/p1',
      headers: { authorization: ADMIN },
      payload: {
        repo: {
          repositories: ['ANY LOCAL', 'npm-remote'],
          include_patterns: ['org/**'],
          exclude_patterns: ['org/secret/**'],
          actions: { users: { eve: ['read', 'annotate'] }, groups: { devs: ['write', 'delete'] } },
        },
      },
    });
    expect(put.statusCode).toBe(201);
    const { authorizer } = t.app.access;
    const eve = { id: 'x', name: 'eve', admin: false, groups: [] };
    const frank = { id: 'y', name: 'frank', admin: false, groups: ['devs'] };
    for (const action of PERMISSION_ACTIONS) {
      const ref = { key: 'libs-local', rclass: 'local' as const, path: 'org/acme/a.jar' };
      expect(await authorizer.can(eve, action, ref), `eve ${action}`).toBe(
        action === 'read' || action === 'annotate',
      );
      expect(await authorizer.can(frank, action, ref), `frank ${action}`).toBe(
        action === 'write' || action === 'delete',
      );
    }
    expect(
      await authorizer.can(eve, 'read', { key: 'libs-local', rclass: 'local', path: 'org/secret/x' }),
    ).toBe(false);
    expect(await authorizer.can(eve, 'read', { key: 'libs-local', rclass: 'local', path: 'com/x' })).toBe(
      false,
    );
    expect(await authorizer.can(eve, 'read', { key: 'other-remote', rclass: 'remote', path: 'org/x' })).toBe(
      false,
    );
    expect(await authorizer.can(eve, 'read', { key: 'npm-remote', rclass: 'remote', path: 'org/x' })).toBe(
      true,
    );
    expect(await authorizer.can(eve, 'read', { key: 'v', rclass: 'virtual', path: 'org/x' })).toBe(false);
    expect(
      await authorizer.can({ id: 'a', name: 'admin', admin: true }, 'manage', {
        key: 'any',
        rclass: 'virtual',
      }),
    ).toBe(true);
    // manage includes the other actions
    await t.app.inject({
      method: 'PUT',
      url: '/api/security/permissions/p2',
      headers: { authorization: ADMIN },
      payload: { repo: { repositories: ['ANY REMOTE'], actions: { users: { eve: ['manage'] } } } },
    });
    for (const action of PERMISSION_ACTIONS)
      expect(await authorizer.can(eve, action, { key: 'r', rclass: 'remote', path: 'a/b' })).toBe(true);
    expect(await authorizer.can(eve, 'write', { key: 'l', rclass: 'local', path: 'a/b' })).toBe(false);
  });

  it('spec 000 §1: anonymous gets only what targets grant the user anonymous, and nothing while anonymous access is off (the default)', async () => {
    await t.app.inject({
      method: 'PUT',
      url: '/api/security/permissions/public',
      headers: { authorization: ADMIN },
      payload: { repo: { repositories: ['ANY'], actions: { users: { anonymous: ['read'] } } } },
    });
    const { authorizer } = t.app.access;
    const ref = { key: 'libs-local', rclass: 'local' as const, path: 'a' };
    expect(await authorizer.can(null, 'read', ref)).toBe(false);
    const patch = await t.app.inject({
      method: 'PATCH',
      url: '/api/security/configuration',
      headers: { authorization: ADMIN },
      payload: { anonymousAccess: true },
    });
    expect(patch.json().anonymousAccess).toBe(true);
    expect(await authorizer.can(null, 'read', ref)).toBe(true);
    expect(await authorizer.can(null, 'write', ref)).toBe(false);
    await t.app.inject({
      method: 'PATCH',
      url: '/api/security/configuration',
      headers: { authorization: ADMIN },
      payload: { anonymousAccess: false },
    });
  });

  it('no token reaches any log file', async () => {
    const token = await newToken(basicAuth('eve', PW));
    await whoCanList(`Bearer ${token.access_token}`);
    await whoCanList('Bearer grn_wrongwrongwrong');
    t.app.granary.logging.flush();
    for (const file of ['server.log', 'request.log', 'security.log'])
      expect(readFileSync(`${t.app.granary.logging.dir}/${file}`, 'utf8')).not.toContain(
        token.access_token.slice(4),
      );
  });
});
