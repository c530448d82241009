import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import {
  basicAuth,
  createTestApp,
  TEST_ADMIN_PASSWORD,
  type TestApp,
  testEngine,
} from '../../testing/index.ts';

const ADMIN = basicAuth('admin', TEST_ADMIN_PASSWORD);

describe(`repository configuration (${testEngine})`, () => {
  let t: TestApp;
  beforeAll(async () => {
    t = await createTestApp();
  });
  afterAll(async () => {
    await t?.close();
  });
  const put = (key: string, payload: object, auth = ADMIN) =>
    t.app.inject({
      method: 'PUT',
      url: `/api/repositories/${key}`,
      headers: { authorization: auth },
      payload,
    });

  it('a fresh install has one generic local repository, generic-local', async () => {
    const res = await t.app.inject({ url: '/api/repositories', headers: { authorization: ADMIN } });
    expect(res.statusCode).toBe(200);
    expect(res.json()).toEqual([
      expect.objectContaining({ key: 'generic-local', type: 'LOCAL', packageType: 'generic' }),
    ]);
  });

  it('DESIGN Public REST API: PUT creates (201), GET answers the repository JSON, POST updates, DELETE removes', async () => {
    const created = await put('libs-local', { rclass: 'local', packageType: 'generic', description: 'libs' });
    expect(created.statusCode, created.body).toBe(201);
    expect(created.json()).toMatchObject({
      key: 'libs-local',
      rclass: 'local',
      packageType: 'generic',
      description: 'libs',
      includesPattern: '**/*',
      excludesPattern: '',
    });
    const updated = await t.app.inject({
      method: 'POST',
      url: '/api/repositories/libs-local',
      headers: { authorization: ADMIN },
      payload: { notes: 'n', excludesPattern: 'secret/**' },
    });
    expect(updated.statusCode, updated.body).toBe(200);
    const got = await t.app.inject({
      url: '/api/repositories/LIBS-LOCAL',
      headers: { authorization: ADMIN },
    });
    expect(got.json()).toMatchObject({
      key: 'libs-local',
      notes: 'n',
      excludesPattern: 'secret/**',
      description: 'libs',
    });
    const del = await t.app.inject({
      method: 'DELETE',
      url: '/api/repositories/libs-local',
      headers: { authorization: ADMIN },
    });
    expect(del.statusCode).toBe(204);
    expect(
      (await t.app.inject({ url: '/api/repositories/libs-local', headers: { authorization: ADMIN } }))
        .statusCode,
    ).toBe(404);
  });

  it('unknown fields → 400; keys unique case-insensitively (409); unsafe, too long or "-cache" keys refused', async () => {
    expect((await put('a-local', { rclass: 'local', bogus: 1 })).statusCode).toBe(400);
    expect((await put('dup-local', { rclass: 'local' })).statusCode).toBe(201);
    expect((await put('DUP-LOCAL', { rclass: 'local' })).statusCode).toBe(409);
    expect((await put('x'.repeat(65), { rclass: 'local' })).statusCode).toBe(400);
    expect((await put('my-cache', { rclass: 'local' })).statusCode).toBe(400);
    expect((await put('bad%20key', { rclass: 'local' })).statusCode).toBe(400);
    expect((await put('.hidden', { rclass: 'local' })).statusCode).toBe(400);
    expect((await put('nope-local', { rclass: 'local', packageType: 'cobol' })).statusCode).toBe(400);
    expect((await put('r-local', { rclass: 'local', url: 'https://x.example' })).statusCode).toBe(400);
  });

  it('writes need an administrator: a signed-in user gets 403, anonymous 401', async () => {
    await t.app.inject({
      method: 'PUT',
      url: '/api/security/users/bob',
      headers: { authorization: ADMIN },
      payload: { password: 'Bob-pa55word!' },
    });
    expect((await put('bob-local', { rclass: 'local' }, basicAuth('bob', 'Bob-pa55word!'))).statusCode).toBe(
      403,
    );
    const anon = await t.app.inject({
      method: 'PUT',
      url: '/api/repositories/anon-local',
      payload: { rclass: 'local' },
    });
    expect(anon.statusCode).toBe(401);
    // Listing shows only what the caller may read: bob has no permission yet.
    const list = await t.app.inject({
      url: '/api/repositories',
      headers: { authorization: basicAuth('bob', 'Bob-pa55word!') },
    });
    expect(list.json()).toEqual([]);
  });

  it('remote: url required, the password is write only; virtual: members must exist and share the package type', async () => {
    expect((await put('up-remote', { rclass: 'remote' })).statusCode).toBe(400);
    const remote = await put('up-remote', {
      rclass: 'remote',
      url: 'https://upstream.example.com/files',
      username: 'u',
      password: 'Sup3r-secret',
      offline: true,
    });
    expect(remote.statusCode, remote.body).toBe(201);
    expect(remote.body).not.toContain('Sup3r-secret');
    expect(remote.json()).toMatchObject({
      url: 'https://upstream.example.com/files',
      username: 'u',
      offline: true,
    });
    const got = await t.app.inject({ url: '/api/repositories/up-remote', headers: { authorization: ADMIN } });
    expect(got.body).not.toContain('Sup3r-secret');

    expect((await put('v1', { rclass: 'virtual', repositories: ['missing-local'] })).statusCode).toBe(400);
    expect(
      (
        await put('v1', {
          rclass: 'virtual',
          repositories: ['generic-local'],
          defaultDeploymentRepo: 'up-remote',
        })
      ).statusCode,
    ).toBe(400);
    const v = await put('v1', {
      rclass: 'virtual',
      repositories: ['generic-local', 'up-remote'],
      defaultDeploymentRepo: 'generic-local',
    });
    expect(v.statusCode, v.body).toBe(201);
    expect(v.json()).toMatchObject({
      repositories: ['generic-local', 'up-remote'],
      defaultDeploymentRepo: 'generic-local',
    });
    const virtuals = await t.app.inject({
      url: '/api/repositories?type=virtual',
      headers: { authorization: ADMIN },
    });
    expect(virtuals.json().map((r: { key: string }) => r.key)).toEqual(['v1']);
  });
});
