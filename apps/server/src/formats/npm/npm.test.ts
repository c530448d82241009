import { readFileSync } from 'node:fs';
import path from 'node:path';
import { Readable } from 'node:stream';
import { SESSION_COOKIE } from '@granary/contracts';
import { eq } from 'drizzle-orm';
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { packages, packageVersions } from '../../modules/packages/packages.schema.ts';
import { basicAuth, createTestApp, TEST_ADMIN_PASSWORD, type TestApp } from '../../testing/index.ts';
import { describeFormatConformance } from '../sdk/conformance.ts';
import { npmFormat } from './index.ts';
import { readTarball } from './metadata.ts';
import { parseNpmPath } from './names.ts';
import { integrityOf, makeTarball, publishDocument, shasumOf } from './test-support.ts';

const FIXTURES = path.join(import.meta.dirname, '__fixtures__');
const fixture = (name: string) => readFileSync(path.join(FIXTURES, name));
const stored = (p: string, bytes: Buffer) => ({
  path: p,
  size: bytes.length,
  sha256: '0'.repeat(64),
  open: async () => Readable.from([bytes]),
});

describeFormatConformance(npmFormat, [
  {
    file: stored('granary-sample/-/granary-sample-1.0.0.tgz', fixture('granary-sample-1.0.0.tgz')),
    expected: { name: 'granary-sample', version: '1.0.0' },
  },
  {
    file: stored(
      '@granary/scoped-sample/-/scoped-sample-2.1.0.tgz',
      fixture('granary-scoped-sample-2.1.0.tgz'),
    ),
    expected: { name: '@granary/scoped-sample', version: '2.1.0' },
  },
  { file: stored('docs/README.md', Buffer.from('# hello')), expected: null },
]);

describe('npm metadata and paths', () => {
  it('issue 6 package index: name, version, description, licence, keywords, dependencies and readme from package/package.json', async () => {
    const meta = await npmFormat.extractMetadata(
      stored('granary-sample/-/granary-sample-1.0.0.tgz', fixture('granary-sample-1.0.0.tgz')),
    );
    expect(meta).toEqual({
      name: 'granary-sample',
      version: '1.0.0',
      description: "A sample package for Granary's npm format tests",
      licenses: ['MIT'],
      keywords: ['granary', 'sample'],
      dependencies: [
        { name: 'left-pad', range: '^1.3.0', scope: 'runtime' },
        { name: 'tap', range: '^16.0.0', scope: 'dev' },
      ],
      readme: '# granary-sample\n\nA sample package.\n',
      leadFile: true,
    });
  });

  it('refuses a tarball that is not a gzipped tar, or has no package.json', async () => {
    await expect(readTarball(Buffer.from('not a tarball'))).rejects.toThrow(
      /not a gzip-compressed tar archive/,
    );
    const { gzipSync } = await import('node:zlib');
    await expect(readTarball(gzipSync(Buffer.alloc(1024)))).rejects.toThrow(/no package\/package.json/);
  });

  it('reads scoped names as the router decodes them, and as clients escape them', () => {
    expect(parseNpmPath('@s/p')).toEqual({ kind: 'packument', name: '@s/p' });
    expect(parseNpmPath('@s%2fp')).toEqual({ kind: 'packument', name: '@s/p' });
    expect(parseNpmPath('@s/p/-/p-1.0.0.tgz')).toEqual({
      kind: 'tarball',
      name: '@s/p',
      file: 'p-1.0.0.tgz',
    });
    expect(parseNpmPath('p/-rev/3-abc')).toEqual({ kind: 'packument', name: 'p', rev: '3-abc' });
    expect(parseNpmPath('p/1.0.0')).toEqual({ kind: 'version', name: 'p', spec: '1.0.0' });
    expect(parseNpmPath('-/v1/search')).toEqual({ kind: 'api', rest: 'v1/search' });
    expect(parseNpmPath('Upper/x')).toEqual({ kind: 'other' });
  });
});

const ADMIN = basicAuth('admin', TEST_ADMIN_PASSWORD);
const CSRF = { 'x-granary-csrf': '1' };
const ABBREVIATED = 'application/vnd.npm.install-v1+json; q=1.0, application/json; q=0.8, */*';

describe('npm registry (API)', () => {
  let t: TestApp;
  const R = '/repository/npm-local';

  const put = (url: string, payload: unknown, authorization = ADMIN) =>
    t.app.inject({
      method: 'PUT',
      url,
      headers: { authorization, 'content-type': 'application/json' },
      payload: typeof payload === 'string' ? payload : JSON.stringify(payload),
    });
  const get = (url: string, headers: Record<string, string> = {}) =>
    t.app.inject({ url, headers: { authorization: ADMIN, ...headers } });
  const publishVersion = async (
    name: string,
    version: string,
    extra: Record<string, unknown> = {},
    tag?: string,
  ) => {
    const manifest = { name, version, description: `${name} ${version}`, ...extra };
    const tgz = await makeTarball(manifest, { 'README.md': `# ${name}\n` });
    return put(
      `${R}/${name.replace('/', '%2f')}`,
      publishDocument(manifest, tgz, { tag, readme: `# ${name}\n` }),
    );
  };

  beforeAll(async () => {
    t = await createTestApp();
    for (const [key, body] of [
      ['npm-local', { rclass: 'local', packageType: 'npm' }],
      ['npm-other', { rclass: 'local', packageType: 'npm' }],
      [
        'npm',
        {
          rclass: 'virtual',
          packageType: 'npm',
          repositories: ['npm-local', 'npm-other'],
          defaultDeploymentRepo: 'npm-local',
        },
      ],
    ] as const) {
      const res = await t.app.inject({
        method: 'PUT',
        url: `/api/repositories/${key}`,
        headers: { authorization: ADMIN },
        payload: body,
      });
      expect(res.statusCode, res.body).toBe(201);
    }
  }, 60_000);
  afterAll(() => t?.close());

  it('issue 6: a published version is served in a packument with tarball URLs for the base URL, sha512 integrity and shasum; the tarball is byte-identical', async () => {
    const tgz = fixture('granary-sample-1.0.0.tgz');
    const { manifest: pkg } = await readTarball(tgz);
    const res = await put(
      `${R}/granary-sample`,
      publishDocument(pkg as never, tgz, { readme: '# granary-sample' }),
    );
    expect(res.statusCode, res.body).toBe(201);
    expect(res.json()).toMatchObject({ ok: true, id: 'granary-sample' });

    const doc = await get(`${R}/granary-sample`, { host: 'repo.example.com:8443' });
    expect(doc.statusCode).toBe(200);
    const body = doc.json();
    expect(body['dist-tags']).toEqual({ latest: '1.0.0' });
    expect(body.readme).toBe('# granary-sample');
    expect(body.versions['1.0.0'].dist).toMatchObject({
      tarball: 'http://repo.example.com:8443/repository/npm-local/granary-sample/-/granary-sample-1.0.0.tgz',
      integrity: integrityOf(tgz),
      shasum: shasumOf(tgz),
    });
    const file = await get(`${R}/granary-sample/-/granary-sample-1.0.0.tgz`);
    expect(file.statusCode).toBe(200);
    expect(Buffer.compare(file.rawPayload, tgz)).toBe(0);

    const index = await t.app.granary.database.db
      .select()
      .from(packageVersions)
      .innerJoin(packages, eq(packages.id, packageVersions.packageId))
      .where(eq(packages.name, 'granary-sample'));
    expect(index).toHaveLength(1);
    expect(index[0]!.package_versions).toMatchObject({
      version: '1.0.0',
      licenses: ['MIT'],
      keywords: ['granary', 'sample'],
      leadPath: 'granary-sample/-/granary-sample-1.0.0.tgz',
    });
  });

  it('issue 6: abbreviated metadata when npm asks for application/vnd.npm.install-v1+json; 304 on a matching ETag', async () => {
    const res = await get(`${R}/granary-sample`, { accept: ABBREVIATED });
    expect(res.headers['content-type']).toContain('application/vnd.npm.install-v1+json');
    const body = res.json();
    expect(Object.keys(body).sort()).toEqual(['dist-tags', 'modified', 'name', 'versions']);
    expect(body.versions['1.0.0'].dependencies).toEqual({ 'left-pad': '^1.3.0' });
    expect(body.versions['1.0.0'].description).toBeUndefined();
    const again = await get(`${R}/granary-sample`, {
      accept: ABBREVIATED,
      'if-none-match': String(res.headers.etag),
    });
    expect(again.statusCode).toBe(304);
  });

  it('issue 24: the kept packument bytes, plain and gzip (npm sends Accept-Encoding: gzip), follow publish, dist-tag, deprecate and unpublish at once', async () => {
    const { gunzipSync } = await import('node:zlib');
    const name = 'cache-follow';
    const path = `${R}/${name}`;
    /** Both shapes, plain and gzip: each must say the same, and what the change made. */
    const read = async () => {
      const out: { versions: string[]; tags: Record<string, string>; deprecated?: string }[] = [];
      for (const accept of ['application/json', ABBREVIATED]) {
        const plain = await get(path, { accept });
        const zipped = await get(path, { accept, 'accept-encoding': 'gzip, deflate, br' });
        expect(plain.statusCode).toBe(200);
        expect(zipped.headers['content-encoding']).toBe('gzip');
        expect(zipped.headers.vary).toContain('Accept-Encoding');
        expect(zipped.headers.etag).toBe(plain.headers.etag);
        const unzipped = gunzipSync(zipped.rawPayload);
        expect(unzipped.equals(plain.rawPayload)).toBe(true);
        const doc = JSON.parse(unzipped.toString());
        out.push({
          versions: Object.keys(doc.versions).sort(),
          tags: doc['dist-tags'],
          deprecated: doc.versions['1.0.0']?.deprecated,
        });
      }
      expect(out[1]).toEqual(out[0]);
      return out[0]!;
    };
    // Large enough to be compressed in both shapes (the abbreviated one keeps dependencies).
    const extra = {
      dependencies: Object.fromEntries(
        Array.from({ length: 80 }, (_, i) => [`dependency-${i}`, `^${i}.0.0`]),
      ),
    };
    expect((await publishVersion(name, '1.0.0', extra)).statusCode).toBe(201);
    expect(await read()).toEqual({ versions: ['1.0.0'], tags: { latest: '1.0.0' } });
    expect((await publishVersion(name, '1.1.0', extra)).statusCode).toBe(201);
    expect(await read()).toEqual({ versions: ['1.0.0', '1.1.0'], tags: { latest: '1.1.0' } });
    expect((await put(`${R}/-/package/${name}/dist-tags/stable`, '"1.0.0"')).statusCode).toBe(201);
    expect((await read()).tags).toEqual({ latest: '1.1.0', stable: '1.0.0' });
    const doc = (await get(`${path}?write=true`)).json();
    doc.versions['1.0.0'].deprecated = 'use 1.1.0';
    expect((await put(path, doc)).statusCode).toBe(200);
    expect((await read()).deprecated).toBe('use 1.1.0');
    // npm unpublish name@1.1.0: the packument without it, then the tarball DELETE.
    const without = (await get(`${path}?write=true`)).json();
    delete without.versions['1.1.0'];
    without['dist-tags'] = { latest: '1.0.0', stable: '1.0.0' };
    expect((await put(`${path}/-rev/${without._rev}`, without)).statusCode).toBe(200);
    await t.app.inject({
      method: 'DELETE',
      url: `${path}/-/${name}-1.1.0.tgz/-rev/${without._rev}`,
      headers: { authorization: ADMIN },
    });
    expect(await read()).toMatchObject({ versions: ['1.0.0'], tags: { latest: '1.0.0' } });
    // A tiny packument is not worth compressing; gzip refused with q=0 is honoured.
    const small = await get(`${R}/granary-sample`, { 'accept-encoding': 'identity, gzip;q=0' });
    expect(small.headers['content-encoding']).toBeUndefined();
  });

  it("issue 6: a published version never changes: re-publishing it is refused with npm's error, the stored tarball is unchanged", async () => {
    const before = await get(`${R}/granary-sample/-/granary-sample-1.0.0.tgz`);
    const res = await publishVersion('granary-sample', '1.0.0');
    expect(res.statusCode).toBe(403);
    expect(res.json()).toEqual({
      error: 'You cannot publish over the previously published versions: 1.0.0.',
    });
    const after = await get(`${R}/granary-sample/-/granary-sample-1.0.0.tgz`);
    expect(Buffer.compare(after.rawPayload, before.rawPayload)).toBe(0);
  });

  it("issue 6 bad input: a malformed body, a wrong name in the tarball, a size or integrity mismatch are refused in npm's shape and nothing is stored", async () => {
    const name = 'bad-input';
    const manifest = { name, version: '1.0.0' };
    const tgz = await makeTarball(manifest);
    const cases: [unknown, RegExp][] = [
      ['{"name": "bad-input", ', /not valid JSON/],
      [{ name, versions: {}, _attachments: { 'x.tgz': { data: '' } } }, /exactly one version/],
      [
        publishDocument(
          { name, version: '1.0.0' },
          await makeTarball({ name: 'other-name', version: '1.0.0' }),
        ),
        /tarball's package.json names other-name@1.0.0/,
      ],
      [
        (() => {
          const d = publishDocument(manifest, tgz) as { _attachments: Record<string, { length: number }> };
          d._attachments['bad-input-1.0.0.tgz']!.length += 10;
          return d;
        })(),
        /announces/,
      ],
      [
        (() => {
          const d = publishDocument(manifest, tgz) as {
            versions: Record<string, { dist: { integrity: string } }>;
          };
          d.versions['1.0.0']!.dist.integrity = integrityOf(Buffer.from('something else'));
          return d;
        })(),
        /Integrity mismatch/,
      ],
      [publishDocument(manifest, Buffer.from('plain text, not gzip')), /not a package/],
      [publishDocument({ name: 'Bad Name', version: '1.0.0' }, tgz), /./],
      [publishDocument({ name, version: 'not-semver' }, tgz), /Invalid version/],
    ];
    for (const [doc, message] of cases) {
      const res = await put(`${R}/${name}`, doc);
      expect(res.statusCode, res.body).toBeGreaterThanOrEqual(400);
      expect(res.statusCode).toBeLessThan(500);
      expect(res.json().error).toMatch(message);
    }
    expect((await get(`${R}/${name}`)).statusCode).toBe(404);
    expect((await get(`/api/storage/npm-local/${name}`)).statusCode).toBe(404);
    expect((await get(`/api/storage/npm-local/.npm/${name}`)).statusCode).toBe(404);
    expect((await get(`${R}/${name}`)).json()).toEqual({ error: "Package 'bad-input' not found" });
  });

  it('issue 6: concurrent publishes of different versions of one package all land (no lost update)', async () => {
    const versions = Array.from({ length: 12 }, (_, i) => `2.0.${i}`);
    const results = await Promise.all(versions.map((v) => publishVersion('concurrent-pkg', v)));
    for (const r of results) expect(r.statusCode, r.body).toBe(201);
    const doc = (await get(`${R}/concurrent-pkg`)).json();
    expect(Object.keys(doc.versions).sort()).toEqual([...versions].sort());
    expect(versions).toContain(doc['dist-tags'].latest);
    expect(Object.keys(doc.time)).toEqual(expect.arrayContaining(['created', 'modified', ...versions]));
  });

  it('issue 6: scoped packages publish through the virtual repository to its default deployment repository, with tags from --tag', async () => {
    expect((await publishVersion('@acme/widget', '1.0.0')).statusCode).toBe(201);
    const beta = await t.app.inject({
      method: 'PUT',
      url: '/repository/npm/@acme%2fwidget',
      headers: { authorization: ADMIN, 'content-type': 'application/json' },
      payload: JSON.stringify(
        publishDocument(
          { name: '@acme/widget', version: '1.1.0-beta.1' },
          await makeTarball({ name: '@acme/widget', version: '1.1.0-beta.1' }),
          { tag: 'beta' },
        ),
      ),
    });
    expect(beta.statusCode, beta.body).toBe(201);
    const local = (await get(`${R}/@acme%2fwidget`)).json();
    expect(local['dist-tags']).toEqual({ latest: '1.0.0', beta: '1.1.0-beta.1' });
    const virtual = (await get('/repository/npm/@acme%2fwidget')).json();
    expect(virtual.versions['1.0.0'].dist.tarball).toMatch(
      /^http:\/\/localhost(:80)?\/repository\/npm\/@acme\/widget\/-\/widget-1\.0\.0\.tgz$/,
    );
    expect((await get('/repository/npm/@acme/widget/-/widget-1.0.0.tgz')).statusCode).toBe(200);
    const one = (await get(`${R}/@acme%2fwidget/beta`)).json();
    expect(one.version).toBe('1.1.0-beta.1');
  });

  it('issue 6: dist-tag add, ls and rm; latest cannot be removed', async () => {
    const add = await put(`${R}/-/package/@acme%2fwidget/dist-tags/stable`, '"1.0.0"');
    expect(add.statusCode, add.body).toBe(201);
    expect((await get(`${R}/-/package/@acme%2fwidget/dist-tags`)).json()).toEqual({
      latest: '1.0.0',
      beta: '1.1.0-beta.1',
      stable: '1.0.0',
    });
    const missing = await put(`${R}/-/package/@acme%2fwidget/dist-tags/stable`, '"9.9.9"');
    expect(missing.statusCode).toBe(404);
    expect((await put(`${R}/-/package/@acme%2fwidget/dist-tags/1.x`, '"1.0.0"')).json().error).toMatch(
      /Invalid dist-tag/,
    );
    const rm = await t.app.inject({
      method: 'DELETE',
      url: `${R}/-/package/@acme%2fwidget/dist-tags/stable`,
      headers: { authorization: ADMIN },
    });
    expect(rm.statusCode).toBe(200);
    const latest = await t.app.inject({
      method: 'DELETE',
      url: `${R}/-/package/@acme%2fwidget/dist-tags/latest`,
      headers: { authorization: ADMIN },
    });
    expect(latest.statusCode).toBe(400);
    expect((await get(`${R}/-/package/@acme%2fwidget/dist-tags`)).json()).toEqual({
      latest: '1.0.0',
      beta: '1.1.0-beta.1',
    });
  });

  it('issue 6: deprecate (a packument PUT with deprecated set) and undeprecate', async () => {
    const doc = (await get(`${R}/concurrent-pkg?write=true`)).json();
    doc.versions['2.0.1'].deprecated = 'use 2.0.11';
    expect((await put(`${R}/concurrent-pkg`, doc)).statusCode).toBe(200);
    const after = (await get(`${R}/concurrent-pkg`)).json();
    expect(after.versions['2.0.1'].deprecated).toBe('use 2.0.11');
    expect(
      (await get(`${R}/concurrent-pkg`, { accept: ABBREVIATED })).json().versions['2.0.1'].deprecated,
    ).toBe('use 2.0.11');
    after.versions['2.0.1'].deprecated = '';
    expect((await put(`${R}/concurrent-pkg`, after)).statusCode).toBe(200);
    expect((await get(`${R}/concurrent-pkg`)).json().versions['2.0.1'].deprecated).toBeUndefined();
  });

  it("issue 6: unpublish a version (npm's PUT then tarball DELETE), then all; a user without delete permission cannot", async () => {
    await t.app.inject({
      method: 'PUT',
      url: '/api/security/users/dev',
      headers: { authorization: ADMIN },
      payload: { name: 'dev', email: 'dev@example.com', password: 'Dev-Passw0rd!x' },
    });
    const perm = await t.app.inject({
      method: 'PUT',
      url: '/api/security/permissions/npm-dev',
      headers: { authorization: ADMIN },
      payload: {
        name: 'npm-dev',
        repo: { repositories: ['npm-local'], actions: { users: { dev: ['read', 'write'] } } },
      },
    });
    expect(perm.statusCode, perm.body).toBeLessThan(300);
    const DEV = basicAuth('dev', 'Dev-Passw0rd!x');
    expect(
      (
        await put(
          `${R}/dev-pkg`,
          publishDocument(
            { name: 'dev-pkg', version: '1.0.0' },
            await makeTarball({ name: 'dev-pkg', version: '1.0.0' }),
          ),
          DEV,
        )
      ).statusCode,
    ).toBe(201);
    expect(
      (
        await put(
          `${R}/dev-pkg`,
          publishDocument(
            { name: 'dev-pkg', version: '1.0.1' },
            await makeTarball({ name: 'dev-pkg', version: '1.0.1' }),
          ),
          DEV,
        )
      ).statusCode,
    ).toBe(201);
    expect(
      (await t.app.inject({ method: 'DELETE', url: `${R}/dev-pkg/-rev/1`, headers: { authorization: DEV } }))
        .statusCode,
    ).toBe(403);

    expect((await put(`${R}/-/package/concurrent-pkg/dist-tags/latest`, '"2.0.11"')).statusCode).toBe(201);
    const doc = (await get(`${R}/concurrent-pkg?write=true`)).json();
    expect(doc['dist-tags'].latest).toBe('2.0.11');
    delete doc.versions['2.0.11'];
    expect((await put(`${R}/concurrent-pkg/-rev/${doc._rev}`, doc)).statusCode).toBe(200);
    const del = await t.app.inject({
      method: 'DELETE',
      url: `${R}/concurrent-pkg/-/concurrent-pkg-2.0.11.tgz/-rev/${doc._rev}`,
      headers: { authorization: ADMIN },
    });
    expect(del.statusCode).toBe(200);
    const after = (await get(`${R}/concurrent-pkg`)).json();
    expect(after.versions['2.0.11']).toBeUndefined();
    expect(after['dist-tags'].latest).toBe('2.0.10');
    expect((await get(`${R}/concurrent-pkg/-/concurrent-pkg-2.0.11.tgz`)).statusCode).toBe(404);

    const all = await t.app.inject({
      method: 'DELETE',
      url: `${R}/concurrent-pkg/-rev/${after._rev}`,
      headers: { authorization: ADMIN },
    });
    expect(all.statusCode).toBe(200);
    expect((await get(`${R}/concurrent-pkg`)).statusCode).toBe(404);
    expect((await get(`/api/storage/npm-local/concurrent-pkg`)).statusCode).toBe(404);
  });

  it('issue 6: the records under .npm/ are written only through the npm protocol', async () => {
    const res = await t.app.inject({
      method: 'PUT',
      url: `${R}/.npm/forged/versions/1.0.0.json`,
      headers: { authorization: ADMIN },
      payload: '{}',
    });
    expect(res.statusCode).toBe(405);
  });

  it("issue 6 npm login (legacy): PUT /-/user/org.couchdb.user:{name} answers a token that works as _authToken; a wrong password gets 401 in npm's shape", async () => {
    const ok = await put(
      '/repository/npm/-/user/org.couchdb.user:admin',
      { name: 'admin', password: TEST_ADMIN_PASSWORD },
      basicAuth('admin', TEST_ADMIN_PASSWORD),
    );
    expect(ok.statusCode, ok.body).toBe(201);
    const { token } = ok.json();
    const me = await t.app.inject({
      url: '/repository/npm/-/whoami',
      headers: { authorization: `Bearer ${token}` },
    });
    expect(me.json()).toEqual({ username: 'admin' });

    // npm logout: only the token the request is signed in with; then it no longer works
    const other = await t.app.inject({
      method: 'DELETE',
      url: '/repository/npm/-/user/token/someone-elses',
      headers: { authorization: `Bearer ${token}` },
    });
    expect(other.statusCode).toBe(404);
    const out = await t.app.inject({
      method: 'DELETE',
      url: `/repository/npm/-/user/token/${encodeURIComponent(token)}`,
      headers: { authorization: `Bearer ${token}` },
    });
    expect(out.statusCode, out.body).toBe(200);
    const after = await t.app.inject({
      url: '/repository/npm/-/whoami',
      headers: { authorization: `Bearer ${token}` },
    });
    expect(after.statusCode).toBe(401);

    const bad = await t.app.inject({
      method: 'PUT',
      url: '/repository/npm/-/user/org.couchdb.user:admin',
      headers: { 'content-type': 'application/json' },
      payload: { name: 'admin', password: 'wrong' },
    });
    expect(bad.statusCode).toBe(401);
    expect(bad.json()).toEqual({ error: 'Bad username or password' });
    const wrong = await t.app.inject({
      url: `${R}/granary-sample`,
      headers: { authorization: basicAuth('admin', 'nope') },
    });
    expect(wrong.statusCode).toBe(401);
    expect(wrong.headers['www-authenticate']).toMatch(/^Basic/);
    expect(Object.keys(wrong.json())).toEqual(['error']);
    const badToken = await t.app.inject({
      url: `${R}/granary-sample`,
      headers: { authorization: 'Bearer nope' },
    });
    expect(badToken.headers['www-authenticate']).toMatch(/^Bearer/);
    expect((await t.app.inject({ url: '/repository/npm/-/ping?write=true' })).statusCode).toBe(200);
  });

  it('issue 6 npm login (web): POST /-/v1/login answers loginUrl (the console CLI registration) and doneUrl; done is 202 until the user confirms, then the token', async () => {
    const start = await t.app.inject({
      method: 'POST',
      url: '/repository/npm/-/v1/login',
      headers: { 'content-type': 'application/json' },
      payload: { hostname: 'laptop' },
    });
    expect(start.statusCode, start.body).toBe(200);
    const { loginUrl, doneUrl } = start.json();
    expect(loginUrl).toMatch(/^http:\/\/localhost(:80)?\/ui\/login\/cli-registration\?session=/);
    const session = new URL(loginUrl).searchParams.get('session')!;
    const done = new URL(doneUrl);
    expect(done.pathname).toBe('/repository/npm/-/v1/done');
    const poll = () => t.app.inject({ url: `${done.pathname}${done.search}` });
    const pending = await poll();
    expect(pending.statusCode).toBe(202);
    expect(pending.headers['retry-after']).toBe('1');

    const login = await t.app.inject({
      method: 'POST',
      url: '/ui/api/v1/ui/auth/login',
      payload: { user: 'admin', password: TEST_ADMIN_PASSWORD },
    });
    const cookie = new RegExp(`${SESSION_COOKIE}=([^;]*)`).exec(String(login.headers['set-cookie']))![0];
    const confirm = await t.app.inject({
      method: 'POST',
      url: `/ui/api/v1/access/cli-registration/${session}/confirm`,
      headers: { cookie, ...CSRF },
    });
    expect(confirm.statusCode).toBe(204);
    const finished = await poll();
    expect(finished.statusCode).toBe(200);
    const { token } = finished.json();
    const me = await t.app.inject({
      url: '/repository/npm/-/whoami',
      headers: { authorization: `Bearer ${token}` },
    });
    expect(me.json()).toEqual({ username: 'admin' });
    expect((await poll()).statusCode).toBe(404);
  });

  it('issue 6: npm search finds names, descriptions and keywords through the virtual repository', async () => {
    const res = await get('/repository/npm/-/v1/search?text=widget&size=20');
    expect(res.statusCode).toBe(200);
    const names = res.json().objects.map((o: { package: { name: string } }) => o.package.name);
    expect(names).toContain('@acme/widget');
    const byKeyword = await get(`${R}/-/v1/search?text=sample`);
    expect(byKeyword.json().objects[0].package).toMatchObject({ name: 'granary-sample', version: '1.0.0' });
    expect((await get(`${R}/-/v1/search?text=nothing-like-this`)).json()).toMatchObject({
      objects: [],
      total: 0,
    });
  });

  it('issue 6 npm audit: the bulk and quick endpoints answer an empty report, never an error', async () => {
    const bulk = await t.app.inject({
      method: 'POST',
      url: '/repository/npm/-/npm/v1/security/advisories/bulk',
      headers: { authorization: ADMIN, 'content-type': 'application/json' },
      payload: { 'granary-sample': ['1.0.0'] },
    });
    expect(bulk.statusCode).toBe(200);
    expect(bulk.json()).toEqual({});
    const quick = await t.app.inject({
      method: 'POST',
      url: '/repository/npm/-/npm/v1/security/audits/quick',
      headers: { authorization: ADMIN, 'content-type': 'application/json' },
      payload: {},
    });
    expect(quick.json().metadata.vulnerabilities.critical).toBe(0);
  });

  it('issue 6 dependency confusion: a name held by a local member takes versions only from local members in the virtual packument', async () => {
    expect(
      (
        await put(
          '/repository/npm-other/shared-name',
          publishDocument(
            { name: 'shared-name', version: '99.0.0' },
            await makeTarball({ name: 'shared-name', version: '99.0.0' }),
          ),
        )
      ).statusCode,
    ).toBe(201);
    expect((await publishVersion('shared-name', '1.2.0')).statusCode).toBe(201);
    const doc = (await get('/repository/npm/shared-name')).json();
    expect(Object.keys(doc.versions).sort()).toEqual(['1.2.0', '99.0.0']);
    // both members are local here: both count; remotes are left out (client test).
    expect(doc['dist-tags'].latest).toBe('1.2.0');
  });
});

describe('npm audit through a remote member', () => {
  let t: TestApp;
  let upstream: import('node:http').Server;
  const received: { url: string; encoding?: string; body: Buffer }[] = [];
  const advisory = {
    'left-pad': [{ id: 1, title: 'Example advisory', severity: 'high', vulnerable_versions: '<1.3.1' }],
  };

  beforeAll(async () => {
    const http = await import('node:http');
    upstream = http.createServer((req, res) => {
      const chunks: Buffer[] = [];
      req.on('data', (c: Buffer) => chunks.push(c));
      req.on('end', () => {
        received.push({
          url: req.url ?? '',
          encoding: req.headers['content-encoding'],
          body: Buffer.concat(chunks),
        });
        res.writeHead(200, { 'content-type': 'application/json' }).end(JSON.stringify(advisory));
      });
    });
    await new Promise<void>((r) => upstream.listen(0, '127.0.0.1', r));
    const port = (upstream.address() as import('node:net').AddressInfo).port;
    t = await createTestApp({ outboundAllowlist: '127.0.0.1' });
    for (const [key, body] of [
      ['npm-remote', { rclass: 'remote', packageType: 'npm', url: `http://127.0.0.1:${port}/registry/` }],
      ['npm-local', { rclass: 'local', packageType: 'npm' }],
      ['npm', { rclass: 'virtual', packageType: 'npm', repositories: ['npm-local', 'npm-remote'] }],
    ] as const) {
      const res = await t.app.inject({
        method: 'PUT',
        url: `/api/repositories/${key}`,
        headers: { authorization: ADMIN },
        payload: body,
      });
      expect(res.statusCode, res.body).toBe(201);
    }
  }, 60_000);
  afterAll(async () => {
    await t?.close();
    upstream?.close();
  });

  it("issue 6 npm audit: a virtual repository forwards the bulk advisory query (gzipped as npm sends it) to its remote member's upstream", async () => {
    const { gzipSync } = await import('node:zlib');
    const query = Buffer.from(JSON.stringify({ 'left-pad': ['1.3.0'] }));
    const res = await t.app.inject({
      method: 'POST',
      url: '/repository/npm/-/npm/v1/security/advisories/bulk',
      headers: { authorization: ADMIN, 'content-type': 'application/json', 'content-encoding': 'gzip' },
      payload: gzipSync(query),
    });
    expect(res.statusCode).toBe(200);
    expect(res.json()).toEqual(advisory);
    expect(received.at(-1)!.url).toBe('/registry/-/npm/v1/security/advisories/bulk');
    expect(received.at(-1)!.encoding).toBe('gzip');
    expect((await import('node:zlib')).gunzipSync(received.at(-1)!.body)).toEqual(query);
    // a local repository has nothing to forward to: an empty report
    const local = await t.app.inject({
      method: 'POST',
      url: '/repository/npm-local/-/npm/v1/security/advisories/bulk',
      headers: { authorization: ADMIN, 'content-type': 'application/json' },
      payload: {},
    });
    expect(local.json()).toEqual({});
  });
});
