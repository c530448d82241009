import { createHash } from 'node:crypto';
import { readFileSync } from 'node:fs';
import path from 'node:path';
import { Readable } from 'node:stream';
import { eq } from 'drizzle-orm';
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { packages, packageVersions } from '../../modules/packages/packages.schema.ts';
import { ADMIN_AUTH, describeFormatProtocolConformance } from '../../testing/format-protocol-conformance.ts';
import { createTestApp, TEST_ADMIN_PASSWORD, type TestApp, testEngine } from '../../testing/index.ts';
import { describeFormatConformance } from '../sdk/conformance.ts';
import { cargoFormat } from './index.ts';
import { indexFileOf } from './names.ts';
import { makeCrate, publishBody } from './test-support.ts';
import { parseToml } from './toml.ts';

const FIXTURE = readFileSync(path.join(import.meta.dirname, '__fixtures__', 'granary-sample-0.1.0.crate'));
const stored = (p: string, bytes: Buffer) => ({
  path: p,
  size: bytes.length,
  sha256: '0'.repeat(64),
  open: async () => Readable.from([bytes]),
});

describeFormatConformance(cargoFormat, [
  {
    file: stored('crates/granary-sample/granary-sample-0.1.0.crate', FIXTURE),
    expected: { name: 'granary-sample', version: '0.1.0' },
  },
  { file: stored('docs/README.md', Buffer.from('# hello')), expected: null },
]);

const publishAs = async (
  t: TestApp,
  repoKey: string,
  auth: string,
  meta: Record<string, unknown>,
  crate: Buffer,
) =>
  t.app.inject({
    method: 'PUT',
    url: `/repository/${repoKey}/api/v1/crates/new`,
    headers: { authorization: auth, 'content-type': 'application/octet-stream' },
    payload: publishBody(meta, crate),
  });

/** issue 23 Cargo: the sparse protocol as cargo speaks it — `cargo publish`'s body, the index file, `dl`. */
describeFormatProtocolConformance(cargoFormat, {
  name: 'conformance-crate',
  remoteSettings: { username: 'admin', password: TEST_ADMIN_PASSWORD },
  async publish(t, repoKey, name, version) {
    const res = await publishAs(
      t,
      repoKey,
      ADMIN_AUTH,
      { name, vers: version },
      await makeCrate(name, version),
    );
    if (res.statusCode !== 200) throw new Error(`publish ${name}@${version}: ${res.statusCode} ${res.body}`);
  },
  async read(t, repoKey, name) {
    const get = (p: string) =>
      t.app.inject({ url: `/repository/${repoKey}/${p}`, headers: { authorization: ADMIN_AUTH } });
    const res = await get(indexFileOf(name));
    if (res.statusCode === 404) return null;
    if (res.statusCode !== 200) throw new Error(`index: ${res.statusCode} ${res.body}`);
    const { dl } = (await get('config.json')).json() as { dl: string };
    const versions = res.body
      .split('\n')
      .filter(Boolean)
      .map((l) => (JSON.parse(l) as { vers: string }).vers);
    const fileUrls = versions.map((v) => dl.replaceAll('{crate}', name).replaceAll('{version}', v));
    return { versions, fileUrls };
  },
});

describe('issue 23 Cargo: Cargo.toml as cargo package writes it', () => {
  it('issue 23 Cargo: the packages index gets name, version, description, licence, keywords and readme from the .crate', async () => {
    const meta = await cargoFormat.extractMetadata(
      stored('crates/granary-sample/granary-sample-0.1.0.crate', FIXTURE),
    );
    expect(meta).toEqual({
      name: 'granary-sample',
      version: '0.1.0',
      description: "A sample crate for Granary's Cargo format tests",
      licenses: ['MIT OR Apache-2.0'],
      keywords: ['granary', 'sample'],
      dependencies: [],
      readme: '# granary-sample\n\nA sample crate.\n',
      leadFile: true,
    });
  });

  it('issue 23 Cargo: TOML strings, arrays, dotted and inline tables are read as cargo writes them', () => {
    const doc = parseToml(
      [
        '[package]',
        'name = "a"',
        "description = '''",
        'two "lines"',
        "of text'''",
        'keywords = [',
        '    "x", # note',
        '    "y\\u00e9",',
        ']',
        '[dependencies.b]',
        'version = "^1.2"',
        'features = ["f"]',
        '[target."cfg(unix)".dependencies]',
        'c = { version = "0.3", package = "real-c" }',
      ].join('\n'),
    );
    expect(doc).toEqual({
      package: { name: 'a', description: 'two "lines"\nof text', keywords: ['x', 'yé'] },
      dependencies: { b: { version: '^1.2', features: ['f'] } },
      target: { 'cfg(unix)': { dependencies: { c: { version: '0.3', package: 'real-c' } } } },
    });
  });
});

describe(`issue 23 Cargo: a local registry (${testEngine})`, () => {
  let t: TestApp;
  let token: string;
  const get = (url: string, authorization = token) => t.app.inject({ url, headers: { authorization } });
  const index = async (name: string) => {
    const res = await get(`/repository/crates/${indexFileOf(name)}`);
    return res.statusCode === 200
      ? res.body
          .split('\n')
          .filter(Boolean)
          .map((l) => JSON.parse(l) as Record<string, unknown>)
      : [];
  };
  const publish = (meta: Record<string, unknown>, crate: Buffer) =>
    publishAs(t, 'crates', token, meta, crate);

  beforeAll(async () => {
    t = await createTestApp({ outboundAllowlist: '127.0.0.1' });
    const base = await t.app.listen({ host: '127.0.0.1', port: 0 });
    for (const [key, body] of [
      ['crates', { rclass: 'local' }],
      // This server's own local repository over loopback HTTP is the remote's sparse upstream.
      [
        'crates-remote',
        {
          rclass: 'remote',
          url: `${base}/repository/crates/`,
          username: 'admin',
          password: TEST_ADMIN_PASSWORD,
        },
      ],
    ] as const) {
      const repo = await t.app.inject({
        method: 'PUT',
        url: `/api/repositories/${key}`,
        headers: { authorization: ADMIN_AUTH },
        payload: { packageType: 'cargo', ...body },
      });
      expect(repo.statusCode, repo.body).toBe(201);
    }
    const tok = await t.app.inject({
      method: 'POST',
      url: '/api/security/tokens',
      headers: { authorization: ADMIN_AUTH },
      payload: { description: 'cargo', scope: 'applied-permissions/admin' },
    });
    expect(tok.statusCode, tok.body).toBe(200);
    token = (tok.json() as { access_token: string }).access_token;
  }, 60_000);
  afterAll(async () => {
    await t?.close();
  });

  it("issue 23 Cargo: config.json names dl and api; anonymous gets 401 in cargo's shape, the raw token (no scheme) gets auth-required", async () => {
    const anonymous = await t.app.inject({ url: '/repository/crates/config.json' });
    expect(anonymous.statusCode).toBe(401);
    expect(anonymous.json()).toEqual({ errors: [{ detail: expect.any(String) }] });
    const res = await get('/repository/crates/config.json');
    expect(res.statusCode, res.body).toBe(200);
    expect(res.json()).toEqual({
      dl: 'http://localhost:80/repository/crates/crates/{crate}/{crate}-{version}.crate',
      api: 'http://localhost:80/repository/crates',
      'auth-required': true,
    });
    expect((await get('/repository/crates/config.json', 'grn_not-a-real-token')).statusCode).toBe(401);
  });

  it('issue 23 Cargo: a publish writes the index entry (deps with req, features, sha256 cksum, yanked, links, v) and the packages index', async () => {
    const crate = await makeCrate('Mixed-Case', '1.0.0', {
      files: { 'README.md': '# Mixed\n' },
      toml: '[package]\nname = "Mixed-Case"\nversion = "1.0.0"\ndescription = "mixed"\nlicense = "MIT"\nreadme = "README.md"\n[dependencies.dep-a]\nversion = "^0.2"\n',
    });
    const res = await publish(
      {
        name: 'Mixed-Case',
        vers: '1.0.0',
        description: 'mixed',
        license: 'MIT',
        links: 'z',
        deps: [
          {
            name: 'dep-a',
            version_req: '^0.2',
            features: ['x'],
            optional: true,
            default_features: false,
            target: null,
            kind: 'normal',
            registry: null,
          },
          {
            name: 'real-b',
            explicit_name_in_toml: 'b',
            version_req: '=1.0.0',
            features: [],
            optional: false,
            default_features: true,
            target: 'cfg(unix)',
            kind: 'dev',
            registry: 'https://github.com/rust-lang/crates.io-index',
          },
        ],
        features: { default: ['x'], x: ['dep-a/x'], y: ['dep:dep-a'] },
      },
      crate,
    );
    expect(res.statusCode, res.body).toBe(200);
    expect(res.json()).toEqual({ warnings: { invalid_categories: [], invalid_badges: [], other: [] } });
    // The index file is at the lower-cased name's prefix: mi/xe/mixed-case.
    expect(await index('mixed-case')).toEqual([
      {
        name: 'Mixed-Case',
        vers: '1.0.0',
        deps: [
          {
            name: 'dep-a',
            req: '^0.2',
            features: ['x'],
            optional: true,
            default_features: false,
            target: null,
            kind: 'normal',
            registry: null,
          },
          {
            name: 'b',
            package: 'real-b',
            req: '=1.0.0',
            features: [],
            optional: false,
            default_features: true,
            target: 'cfg(unix)',
            kind: 'dev',
            registry: 'https://github.com/rust-lang/crates.io-index',
          },
        ],
        cksum: createHash('sha256').update(crate).digest('hex'),
        features: { default: ['x'], x: ['dep-a/x'] },
        features2: { y: ['dep:dep-a'] },
        yanked: false,
        links: 'z',
        v: 2,
      },
    ]);
    const dl = await get('/repository/crates/crates/Mixed-Case/Mixed-Case-1.0.0.crate');
    expect(dl.statusCode).toBe(200);
    expect(dl.rawPayload.equals(crate)).toBe(true);
    const rows = await t.app.granary.database.db
      .select({ name: packages.name, version: packageVersions.version, lead: packageVersions.leadPath })
      .from(packageVersions)
      .innerJoin(packages, eq(packages.id, packageVersions.packageId))
      .where(eq(packages.name, 'Mixed-Case'));
    expect(rows).toEqual([
      { name: 'Mixed-Case', version: '1.0.0', lead: 'crates/Mixed-Case/Mixed-Case-1.0.0.crate' },
    ]);
    // The index's own records are not files of the generic API.
    expect((await get('/api/storage/crates/.cargo-index', ADMIN_AUTH)).statusCode).toBe(404);
  });

  it("issue 23 Cargo: bad input (name/version mismatch, a path escape, a duplicate version) is refused in cargo's error shape and leaves nothing", async () => {
    const refused = async (meta: Record<string, unknown>, crate: Buffer, status: number, detail: RegExp) => {
      const res = await publish(meta, crate);
      expect(res.statusCode, res.body).toBe(status);
      const body = res.json() as { errors: { detail: string }[] };
      expect(body.errors[0]!.detail).toMatch(detail);
    };
    await refused(
      { name: 'bad-one', vers: '1.0.0' },
      await makeCrate('bad-two', '1.0.0', { root: 'bad-one-1.0.0' }),
      400,
      /Cargo\.toml names bad-two@1\.0\.0/,
    );
    await refused(
      { name: 'bad-one', vers: '1.0.0' },
      await makeCrate('bad-one', '1.0.1', { root: 'bad-one-1.0.0' }),
      400,
      /bad-one@1\.0\.1/,
    );
    await refused(
      { name: 'bad-one', vers: '1.0.0' },
      await makeCrate('bad-one', '1.0.0', { files: { '../../etc/cron.d/x': 'boom' } }),
      400,
      /outside/,
    );
    await refused({ name: '../x', vers: '1.0.0' }, await makeCrate('x', '1.0.0'), 400, /Invalid crate name/);
    await refused({ name: 'bad-one', vers: 'one' }, await makeCrate('bad-one', 'one'), 400, /semver/);
    expect(await index('bad-one')).toEqual([]);
    expect((await get('/api/storage/crates/crates/bad-one', ADMIN_AUTH)).statusCode).toBe(404);

    expect((await publish({ name: 'dup', vers: '1.0.0' }, await makeCrate('dup', '1.0.0'))).statusCode).toBe(
      200,
    );
    await refused(
      { name: 'dup', vers: '1.0.0+build' },
      await makeCrate('dup', '1.0.0+build'),
      409,
      /already uploaded/,
    );
    await refused(
      { name: 'DUP', vers: '2.0.0' },
      await makeCrate('DUP', '2.0.0'),
      409,
      /differing only in case/,
    );
    expect((await index('dup')).map((e) => e.vers)).toEqual(['1.0.0']);
    expect((await get('/api/storage/crates/crates/dup', ADMIN_AUTH)).json().children).toHaveLength(1);
    // Anonymous publishes hear 401 in cargo's shape.
    const anonymous = await t.app.inject({
      method: 'PUT',
      url: '/repository/crates/api/v1/crates/new',
      payload: publishBody({ name: 'dup', vers: '3.0.0' }, Buffer.alloc(0)),
    });
    expect(anonymous.statusCode).toBe(401);
    expect(anonymous.json()).toHaveProperty('errors');
  });

  it('issue 23 Cargo: yank and unyank flip the index entry; search and owners answer from what is stored', async () => {
    expect(
      (
        await publish(
          { name: 'yankee', vers: '0.1.0', description: 'to yank' },
          await makeCrate('yankee', '0.1.0'),
        )
      ).statusCode,
    ).toBe(200);
    expect(
      (
        await publish(
          { name: 'yankee', vers: '0.2.0', description: 'to yank' },
          await makeCrate('yankee', '0.2.0'),
        )
      ).statusCode,
    ).toBe(200);
    const yank = await t.app.inject({
      method: 'DELETE',
      url: '/repository/crates/api/v1/crates/yankee/0.1.0/yank',
      headers: { authorization: token },
    });
    expect(yank.statusCode, yank.body).toBe(200);
    expect(yank.json()).toEqual({ ok: true });
    expect((await index('yankee')).map((e) => [e.vers, e.yanked])).toEqual([
      ['0.1.0', true],
      ['0.2.0', false],
    ]);
    const unyank = await t.app.inject({
      method: 'PUT',
      url: '/repository/crates/api/v1/crates/yankee/0.1.0/unyank',
      headers: { authorization: token },
    });
    expect(unyank.statusCode).toBe(200);
    expect((await index('yankee')).map((e) => e.yanked)).toEqual([false, false]);
    const missing = await t.app.inject({
      method: 'DELETE',
      url: '/repository/crates/api/v1/crates/yankee/9.9.9/yank',
      headers: { authorization: token },
    });
    expect(missing.statusCode).toBe(404);

    const search = await get('/repository/crates/api/v1/crates?q=YANK&per_page=5');
    expect(search.json()).toEqual({
      crates: [{ name: 'yankee', max_version: '0.2.0', description: 'to yank' }],
      meta: { total: 1 },
    });
    const owners = await get('/repository/crates/api/v1/crates/yankee/owners');
    expect(owners.json()).toEqual({ users: [{ id: 1, login: 'admin', name: 'admin' }] });
    const add = await t.app.inject({
      method: 'PUT',
      url: '/repository/crates/api/v1/crates/yankee/owners',
      headers: { authorization: token },
      payload: { users: ['bob'] },
    });
    expect(add.statusCode).toBe(400);
    expect(add.json().errors[0].detail).toMatch(/permissions/);
  });

  it('issue 23 Cargo: a .crate deleted outside cargo leaves the index, so cargo never resolves what it cannot download', async () => {
    expect(
      (await publish({ name: 'gone', vers: '1.0.0' }, await makeCrate('gone', '1.0.0'))).statusCode,
    ).toBe(200);
    expect(
      (await publish({ name: 'gone', vers: '1.1.0' }, await makeCrate('gone', '1.1.0'))).statusCode,
    ).toBe(200);
    const del = await t.app.inject({
      method: 'DELETE',
      url: '/repository/crates/crates/gone/gone-1.0.0.crate',
      headers: { authorization: ADMIN_AUTH },
    });
    expect(del.statusCode, del.body).toBeLessThan(300);
    expect((await index('gone')).map((e) => e.vers)).toEqual(['1.1.0']);
    // A crate file is never put beside cargo: PUT is refused.
    const put = await t.app.inject({
      method: 'PUT',
      url: '/repository/crates/crates/gone/gone-2.0.0.crate',
      headers: { authorization: ADMIN_AUTH },
      payload: 'x',
    });
    expect(put.statusCode).toBe(405);
  });

  it('issue 23 Cargo: a remote proxies a sparse upstream — its config.json points here, the .crate is fetched by the upstream dl, verified and cached', async () => {
    const crate = await makeCrate('proxied', '1.0.0');
    expect((await publish({ name: 'proxied', vers: '1.0.0' }, crate)).statusCode).toBe(200);
    const config = (await get('/repository/crates-remote/config.json')).json() as { dl: string };
    expect(config.dl).toBe(
      'http://localhost:80/repository/crates-remote/crates/{crate}/{crate}-{version}.crate',
    );
    const entries = (await get(`/repository/crates-remote/${indexFileOf('proxied')}`)).body;
    expect(JSON.parse(entries)).toMatchObject({
      name: 'proxied',
      vers: '1.0.0',
      cksum: createHash('sha256').update(crate).digest('hex'),
    });
    const dl = await get('/repository/crates-remote/crates/proxied/proxied-1.0.0.crate');
    expect(dl.statusCode, dl.body).toBe(200);
    expect(dl.rawPayload.equals(crate)).toBe(true);
    expect(
      (await get('/api/storage/crates-remote-cache/crates/proxied/proxied-1.0.0.crate', ADMIN_AUTH))
        .statusCode,
    ).toBe(200);
    // Cached: served although the upstream no longer has it.
    await t.app.inject({
      method: 'DELETE',
      url: '/repository/crates/crates/proxied/proxied-1.0.0.crate',
      headers: { authorization: ADMIN_AUTH },
    });
    const again = await get('/repository/crates-remote/crates/proxied/proxied-1.0.0.crate');
    expect(again.statusCode).toBe(200);
    expect((await get('/repository/crates-remote/crates/proxied/proxied-9.0.0.crate')).statusCode).toBe(404);
  });
});
