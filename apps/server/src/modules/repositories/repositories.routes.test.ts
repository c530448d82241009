import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import {
  basicAuth,
  createTestApp,
  TEST_ADMIN_PASSWORD,
  type TestApp,
  testEngine,
} from '../../testing/index.ts';
import { upstreamAddressCheck } from './repositories.service.ts';

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

describe(`remote URLs are checked against the outbound address rule when saved (${testEngine})`, () => {
  let t: TestApp;
  beforeAll(async () => {
    // No GRANARY_OUTBOUND_ALLOWLIST: loopback and private upstreams are refused.
    t = await createTestApp();
  });
  afterAll(async () => {
    await t?.close();
  });
  const save = (method: 'PUT' | 'POST', key: string, payload: object) =>
    t.app.inject({ method, url: `/api/repositories/${key}`, headers: { authorization: ADMIN }, payload });
  const rule =
    'remote repositories may not reach loopback, private, link-local or metadata addresses unless GRANARY_OUTBOUND_ALLOWLIST names the host or the address';

  it('issue 12 §8: a remote URL at a loopback, private or metadata address (or a name resolving to one) is refused with 400 naming the rule and the setting; nothing is saved', async () => {
    const cases: [string, string][] = [
      ['http://127.0.0.1:8081/repo', 'url: 127.0.0.1 is a loopback address'],
      ['http://10.1.2.3/maven2', 'url: 10.1.2.3 is a private address'],
      ['http://169.254.169.254/latest/meta-data/', 'url: 169.254.169.254 is the cloud metadata address'],
      ['http://[::1]:8080/', 'url: ::1 is a loopback address'],
      ['http://[::ffff:192.168.0.1]/', 'url: ::ffff:c0a8:1 is a private address'],
      ['http://0x7f.1/', 'url: 127.0.0.1 is a loopback address'],
      ['http://localhost:4873/', 'url: localhost resolves to'],
    ];
    for (const [url, start] of cases) {
      const res = await save('PUT', 'r-private', { rclass: 'remote', packageType: 'npm', url });
      expect(res.statusCode, url).toBe(400);
      const message: string = res.json().errors[0].message;
      expect(message.startsWith(start), `${url}: ${message}`).toBe(true);
      expect(message).toContain(rule);
    }
    expect(
      (await t.app.inject({ url: '/api/repositories/r-private', headers: { authorization: ADMIN } }))
        .statusCode,
    ).toBe(404);
  });

  it('issue 12 §8: updating a saved remote to a private URL is refused too; a public one is saved without dialling it', async () => {
    const created = await save('PUT', 'r-public', { rclass: 'remote', url: 'http://93.184.215.14/files' });
    expect(created.statusCode, created.body).toBe(201);
    const moved = await save('POST', 'r-public', { url: 'http://192.168.10.20/files' });
    expect(moved.statusCode).toBe(400);
    expect(moved.json().errors[0].message).toContain('GRANARY_OUTBOUND_ALLOWLIST');
    const got = await t.app.inject({ url: '/api/repositories/r-public', headers: { authorization: ADMIN } });
    expect(got.json().url).toBe('http://93.184.215.14/files');
    // Other fields of a remote are saved as before.
    expect((await save('POST', 'r-public', { offline: true })).statusCode).toBe(200);
  });

  it('issue 12 §8: the allow-list admits what it names; a name resolving to a private address is refused unless listed; a name that does not resolve now is left to the dial-time check', async () => {
    const resolver = async (host: string) => {
      if (host === 'mirror.corp') return [{ address: '10.0.0.5', family: 4 }];
      if (host === 'split.example')
        return [
          { address: '93.184.215.14', family: 4 },
          { address: '172.16.0.9', family: 4 },
        ];
      if (host === 'slow.example') return new Promise<never>(() => {});
      throw Object.assign(new Error('getaddrinfo ENOTFOUND'), { code: 'ENOTFOUND' });
    };
    const strict = upstreamAddressCheck([], resolver, 50);
    await expect(strict('https://mirror.corp/maven2')).rejects.toThrow(
      /^url: mirror\.corp resolves to 10\.0\.0\.5, a private address: .*GRANARY_OUTBOUND_ALLOWLIST/,
    );
    await expect(strict('https://split.example/')).rejects.toThrow(/resolves to 172\.16\.0\.9/);
    await expect(strict('https://nowhere.invalid/')).resolves.toBeUndefined();
    await expect(strict('https://slow.example/')).resolves.toBeUndefined();
    await expect(strict('https://93.184.215.14/')).resolves.toBeUndefined();
    const listed = upstreamAddressCheck(['mirror.corp', '10.0.0.0/8', '127.0.0.1'], resolver, 50);
    await expect(listed('https://mirror.corp/maven2')).resolves.toBeUndefined();
    await expect(listed('http://10.9.9.9/')).resolves.toBeUndefined();
    await expect(listed('http://127.0.0.1:9000/')).resolves.toBeUndefined();
    await expect(listed('http://169.254.169.254/')).rejects.toThrow(/cloud metadata address/);
  });
});
