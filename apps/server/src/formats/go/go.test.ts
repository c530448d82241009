import { createHash } from 'node:crypto';
import http from 'node:http';
import type { AddressInfo } from 'node:net';
import { Readable } from 'node:stream';
import { eq } from 'drizzle-orm';
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { packages, packageVersions } from '../../platform/db/schema.ts';
import { ADMIN_AUTH, describeFormatProtocolConformance } from '../../testing/format-protocol-conformance.ts';
import { createTestApp, TEST_ADMIN_PASSWORD, type TestApp, testEngine } from '../../testing/index.ts';
import { describeFormatConformance } from '../sdk/conformance.ts';
import { parseGoMod } from './gomod.ts';
import { goFormat } from './index.ts';
import { escapePath, latestOf, parseGoPath, sortVersions, unescapePath } from './module.ts';
import { libraryZip, MIT, moduleZip } from './test-modules.ts';

const sha256 = (b: Buffer) => createHash('sha256').update(b).digest('hex');
const lazyFile = (path: string, make: () => Promise<Buffer>) => ({
  path,
  size: 0,
  sha256: '',
  open: async () => Readable.from([await make()]),
});

describeFormatConformance(goFormat, [
  {
    file: lazyFile('granary.test/!hello/@v/v1.2.0.zip', () => libraryZip('granary.test/Hello', 'v1.2.0')),
    expected: { name: 'granary.test/Hello', version: 'v1.2.0' },
  },
  { file: lazyFile('granary.test/hello/@v/v1.2.0.mod', async () => Buffer.from('module x')), expected: null },
  { file: lazyFile('granary.test/hello/@v/list', async () => Buffer.from('v1.0.0\n')), expected: null },
  {
    file: lazyFile('granary.test/hello/@v/v1.0.0.zip', async () => Buffer.from('not a zip')),
    expected: null,
  },
]);

describe('issue 23 Go: module paths and versions (units)', () => {
  it('issue 23 Go: module paths are case-encoded with ! in URLs, and decoded back', () => {
    expect(escapePath('github.com/Azure/azure-SDK')).toBe('github.com/!azure/azure-!s!d!k');
    expect(unescapePath('github.com/!azure/azure-!s!d!k')).toBe('github.com/Azure/azure-SDK');
    expect(unescapePath('github.com/Azure/x')).toBeNull();
    expect(unescapePath('github.com/!/x')).toBeNull();
    expect(parseGoPath('granary.test/!a/@v/v1.0.0-!r!c1.zip')).toEqual({
      kind: 'file',
      module: 'granary.test/A',
      version: 'v1.0.0-RC1',
      ext: 'zip',
    });
  });

  it('issue 23 Go: pseudo-versions and +incompatible sort semantically; @latest prefers releases, then pre-releases, then pseudo-versions', () => {
    const versions = [
      'v1.10.0',
      'v1.2.0',
      'v2.0.0+incompatible',
      'v1.2.1-0.20191109021931-daa7c04131f5',
      'v0.0.0-20180101000000-abcdefabcdef',
      'v1.2.0-rc.1',
      'v1.9.9-beta.10',
      'v1.9.9-beta.9',
      'not-a-version',
    ];
    expect(sortVersions(versions)).toEqual([
      'v0.0.0-20180101000000-abcdefabcdef',
      'v1.2.0-rc.1',
      'v1.2.0',
      'v1.2.1-0.20191109021931-daa7c04131f5',
      'v1.9.9-beta.9',
      'v1.9.9-beta.10',
      'v1.10.0',
      'v2.0.0+incompatible',
    ]);
    expect(latestOf(versions)).toBe('v2.0.0+incompatible');
    expect(latestOf(['v1.0.0-rc.1', 'v1.0.1-0.20191109021931-daa7c04131f5'])).toBe('v1.0.0-rc.1');
    expect(latestOf(['v0.0.0-20191109021931-daa7c04131f5', 'v0.0.0-20180101000000-abcdefabcdef'])).toBe(
      'v0.0.0-20191109021931-daa7c04131f5',
    );
  });

  it('issue 23 Go: go.mod require directives are read in line and block form', () => {
    const mod = parseGoMod(
      'module granary.test/app // the app\n\ngo 1.19\n\nrequire granary.test/one v1.0.0\nrequire (\n\tgranary.test/two v0.2.0 // indirect\n\t"granary.test/three" v3.0.0\n)\n',
    );
    expect(mod.module).toBe('granary.test/app');
    expect(mod.requires).toEqual([
      { path: 'granary.test/one', version: 'v1.0.0', indirect: false },
      { path: 'granary.test/two', version: 'v0.2.0', indirect: true },
      { path: 'granary.test/three', version: 'v3.0.0', indirect: false },
    ]);
  });
});

describe(`issue 23 Go: local and virtual repositories (${testEngine})`, () => {
  let t: TestApp;
  /** A GOPROXY on loopback that also proxies a checksum database (`/sumdb/sum.golang.org/…`); requests counted. */
  const hits: string[] = [];
  let upstreamZip: Buffer;
  const upstream = http.createServer((q, res) => {
    hits.push(q.url ?? '');
    if (q.url === '/sumdb/sum.golang.org/supported') return res.writeHead(200).end();
    if (q.url === '/sumdb/sum.golang.org/lookup/granary.test/up@v1.0.0')
      return res.writeHead(200, { 'content-type': 'text/plain' }).end('42\ngranary.test/up v1.0.0 h1:x=\n');
    if (q.url === '/granary.test/up/@v/list') return res.writeHead(200).end('v1.0.0\n');
    if (q.url === '/granary.test/up/@v/v1.0.0.info' || q.url === '/granary.test/up/@latest')
      return res
        .writeHead(200, { 'content-type': 'application/json' })
        .end('{"Version":"v1.0.0","Time":"2026-01-01T00:00:00Z"}');
    if (q.url === '/granary.test/up/@v/v1.0.0.zip')
      return res.writeHead(200, { 'content-type': 'application/zip' }).end(upstreamZip);
    res.writeHead(404).end('not found');
  });
  const req = (method: 'GET' | 'PUT', url: string, payload?: Buffer | string) =>
    t.app.inject({
      method,
      url,
      headers: { authorization: ADMIN_AUTH },
      ...(payload !== undefined ? { payload } : {}),
    });
  const deploy = (key: string, module: string, version: string, zip: Buffer) =>
    req('PUT', `/repository/${key}/${escapePath(module)}/@v/${version}.zip`, zip);
  const stored = async (key: string, path: string) =>
    (await req('GET', `/api/storage/${key}/${path}`)).statusCode;

  beforeAll(async () => {
    upstreamZip = await libraryZip('granary.test/up', 'v1.0.0');
    await new Promise<void>((r) => upstream.listen(0, '127.0.0.1', r));
    t = await createTestApp({ outboundAllowlist: '127.0.0.1' });
    for (const [key, body] of [
      [
        'go-rem',
        {
          rclass: 'remote',
          url: `http://127.0.0.1:${(upstream.address() as AddressInfo).port}/`,
          retrievalCachePeriodSecs: 0,
        },
      ],
      ['go-a', { rclass: 'local' }],
      ['go-b', { rclass: 'local' }],
      ['go-v', { rclass: 'virtual', repositories: ['go-a', 'go-b'], defaultDeploymentRepo: 'go-a' }],
    ] as const) {
      const res = await t.app.inject({
        method: 'PUT',
        url: `/api/repositories/${key}`,
        headers: { authorization: ADMIN_AUTH },
        payload: { packageType: 'go', ...body },
      });
      expect(res.statusCode, res.body).toBe(201);
    }
  }, 60_000);
  afterAll(async () => {
    await t?.close();
    await new Promise((r) => upstream.close(r));
  });

  it('issue 23 Go: a remote proxies its upstream GOPROXY and caches module files; sumdb/ passes through when the upstream offers it, 404 where there is none', async () => {
    expect((await req('GET', '/repository/go-rem/granary.test/up/@v/list')).body).toBe('v1.0.0\n');
    for (let i = 0; i < 2; i++) {
      const zip = await req('GET', '/repository/go-rem/granary.test/up/@v/v1.0.0.zip');
      expect(zip.statusCode).toBe(200);
      expect(zip.rawPayload.equals(upstreamZip)).toBe(true);
    }
    expect(hits.filter((h) => h.endsWith('.zip'))).toHaveLength(1);
    expect(JSON.parse((await req('GET', '/repository/go-rem/granary.test/up/@v/v1.0.0.info')).body)).toEqual({
      Version: 'v1.0.0',
      Time: '2026-01-01T00:00:00Z',
    });
    expect(JSON.parse((await req('GET', '/repository/go-rem/granary.test/up/@latest')).body)).toMatchObject({
      Version: 'v1.0.0',
    });
    expect(await stored('go-rem-cache', 'granary.test/up/@v/v1.0.0.zip')).toBe(200);

    expect((await req('GET', '/repository/go-rem/sumdb/sum.golang.org/supported')).statusCode).toBe(200);
    const lookup = await req('GET', '/repository/go-rem/sumdb/sum.golang.org/lookup/granary.test/up@v1.0.0');
    expect(lookup.statusCode).toBe(200);
    expect(lookup.body).toContain('granary.test/up v1.0.0 h1:x=');
    // a local repository has no checksum database: the go command then asks sum.golang.org itself
    expect((await req('GET', '/repository/go-a/sumdb/sum.golang.org/supported')).statusCode).toBe(404);
    expect(await stored('go-rem-cache', 'sumdb/sum.golang.org/supported')).toBe(404);
  });

  it('issue 23 Go: a deployed module zip is served as .zip, .mod and .info; @v/list omits pseudo-versions; @latest answers the best; the packages index has its licence and requirements', async () => {
    const module = 'granary.test/Upper/lib';
    for (const v of ['v1.10.0', 'v1.2.0', 'v1.11.0-rc.1', 'v1.10.1-0.20240101000000-abcdefabcdef']) {
      const zip = await libraryZip(module, v, { license: MIT, requires: ['granary.test/dep v0.3.0'] });
      const res = await deploy('go-a', module, v, zip);
      expect(res.statusCode, res.body).toBe(201);
    }
    const base = '/repository/go-a/granary.test/!upper/lib/@v';
    const list = await req('GET', `${base}/list`);
    expect(list.statusCode).toBe(200);
    expect(list.body).toBe('v1.2.0\nv1.10.0\nv1.11.0-rc.1\n');
    const latest = await req('GET', '/repository/go-a/granary.test/!upper/lib/@latest');
    expect(JSON.parse(latest.body)).toMatchObject({ Version: 'v1.10.0' });
    const info = await req('GET', `${base}/v1.2.0.info`);
    expect(JSON.parse(info.body)).toMatchObject({ Version: 'v1.2.0', Time: expect.any(String) });
    const mod = await req('GET', `${base}/v1.2.0.mod`);
    expect(mod.body).toContain(`module ${module}`);
    const zip = await req('GET', `${base}/v1.2.0.zip`);
    expect(
      zip.rawPayload.equals(
        await libraryZip(module, 'v1.2.0', { license: MIT, requires: ['granary.test/dep v0.3.0'] }),
      ),
    ).toBe(true);

    const [row] = await t.app.granary.database.db
      .select({
        name: packages.name,
        licenses: packageVersions.licenses,
        deps: packageVersions.dependencies,
        lead: packageVersions.leadPath,
      })
      .from(packageVersions)
      .innerJoin(packages, eq(packages.id, packageVersions.packageId))
      .where(eq(packageVersions.version, 'v1.2.0'));
    expect(row).toMatchObject({ name: module, licenses: ['MIT'] });
    expect(row!.lead).toMatch(/@v\/v1\.2\.0\.zip$/);
    expect(JSON.stringify(row!.deps)).toContain('granary.test/dep');
  });

  it('issue 23 Go: a version never changes — the same zip again is accepted, another is refused with 409', async () => {
    const module = 'granary.test/immutable';
    const zip = await libraryZip(module, 'v1.0.0');
    expect((await deploy('go-a', module, 'v1.0.0', zip)).statusCode).toBe(201);
    expect((await deploy('go-a', module, 'v1.0.0', zip)).statusCode).toBe(200);
    const other = await deploy(
      'go-a',
      module,
      'v1.0.0',
      await libraryZip(module, 'v1.0.0', { text: 'changed' }),
    );
    expect(other.statusCode).toBe(409);
    expect(other.headers['content-type']).toMatch(/^text\/plain/);
    expect(other.body).toContain('never changes');
  });

  it('issue 23 Go: bad module zips are refused with a plain-text 400 the go command prints, and nothing is stored', async () => {
    const module = 'granary.test/bad';
    const cases: [string, Buffer, RegExp][] = [
      [
        'v1.0.0',
        await moduleZip({
          'granary.test/other@v1.0.0/go.mod': `module ${module}\n`,
          'granary.test/other@v1.0.0/a.go': 'package a',
        }),
        /not in the module directory granary\.test\/bad@v1\.0\.0\//,
      ],
      [
        'v1.0.1',
        // zip writers refuse `..`: the name is patched in after (same length, in both headers)
        await moduleZip({
          [`${module}@v1.0.1/go.mod`]: `module ${module}\n`,
          [`${module}@v1.0.1/x/AA/AA/AA/etc/passwd`]: 'root',
        }).then((b) => Buffer.from(b.toString('latin1').replaceAll('x/AA/AA/AA/', 'x/../../../'), 'latin1')),
        /path escape|invalid relative path/,
      ],
      [
        'v1.0.2',
        await libraryZip(module, 'v1.0.2', { goMod: 'module granary.test/somebody-else\n' }),
        /go\.mod has module path "granary\.test\/somebody-else"/,
      ],
      ['v2.0.0', await libraryZip(module, 'v2.0.0'), /should be v0 or v1, not v2/],
      ['v3.0.0+incompatible', await libraryZip(module, 'v3.0.0+incompatible'), /\+incompatible.*go\.mod/],
      ['v1.0.3', Buffer.from('not a zip at all'), /invalid module zip/],
      [
        'v1.0.4',
        await libraryZip(module, 'v1.0.4', { goMod: `module ${module}\n${' '.repeat(16 * 1024 * 1024)}` }),
        /larger than 16777216 bytes/,
      ],
    ];
    for (const [version, zip, message] of cases) {
      const res = await deploy('go-a', module, version, zip);
      expect(res.statusCode, `${version}: ${res.body}`).toBe(400);
      expect(res.headers['content-type']).toMatch(/^text\/plain/);
      expect(res.body).toMatch(message);
      for (const ext of ['zip', 'mod', 'info'])
        expect(await stored('go-a', `${module}/@v/${version}.${ext}`)).toBe(404);
    }
    expect((await req('GET', `/repository/go-a/${module}/@v/list`)).statusCode).toBe(404);
  });

  it('issue 23 Go: a zip announced larger than the 500 MiB limit of the go command is refused with 413 before it is read', async () => {
    const res = await t.app.inject({
      method: 'PUT',
      url: '/repository/go-a/granary.test/huge/@v/v1.0.0.zip',
      headers: { authorization: ADMIN_AUTH, 'content-length': String(500 * 1024 * 1024 + 1) },
      payload: Buffer.alloc(16),
    });
    expect(res.statusCode).toBe(413);
    expect(res.body).toContain("larger than the go command's limit of 524288000 bytes");
    expect(await stored('go-a', 'granary.test/huge/@v/v1.0.0.zip')).toBe(404);
  });

  it('issue 23 Go: a deployed .mod the zip does not match refuses the zip; nothing of it is stored', async () => {
    const module = 'granary.test/modfirst';
    const base = `/repository/go-a/${module}/@v`;
    expect((await req('PUT', `${base}/v1.0.0.mod`, `module ${module}\n\ngo 1.19\n`)).statusCode).toBe(201);
    const res = await deploy(
      'go-a',
      module,
      'v1.0.0',
      await libraryZip(module, 'v1.0.0', { goMod: `module ${module}\n\ngo 1.21\n` }),
    );
    expect(res.statusCode).toBe(400);
    expect(res.body).toContain('does not match the deployed v1.0.0.mod');
    expect(await stored('go-a', `${module}/@v/v1.0.0.zip`)).toBe(404);
    const ok = await deploy(
      'go-a',
      module,
      'v1.0.0',
      await libraryZip(module, 'v1.0.0', { goMod: `module ${module}\n\ngo 1.19\n` }),
    );
    expect(ok.statusCode, ok.body).toBe(201);
  });

  it('issue 23 Go: a virtual repository merges @v/list of its members and answers @latest over the merge; deploys go to its default repository', async () => {
    const module = 'granary.test/merged';
    expect((await deploy('go-a', module, 'v1.0.0', await libraryZip(module, 'v1.0.0'))).statusCode).toBe(201);
    expect((await deploy('go-b', module, 'v1.1.0', await libraryZip(module, 'v1.1.0'))).statusCode).toBe(201);
    expect(
      (await deploy('go-b', module, 'v1.0.0', await libraryZip(module, 'v1.0.0', { text: 'b' }))).statusCode,
    ).toBe(201);
    const list = await req('GET', `/repository/go-v/${module}/@v/list`);
    expect(list.body).toBe('v1.0.0\nv1.1.0\n');
    expect(JSON.parse((await req('GET', `/repository/go-v/${module}/@latest`)).body)).toMatchObject({
      Version: 'v1.1.0',
    });
    // the first member wins for a version both hold
    const zip = await req('GET', `/repository/go-v/${module}/@v/v1.0.0.zip`);
    expect(sha256(zip.rawPayload)).toBe(sha256(await libraryZip(module, 'v1.0.0')));
    expect((await deploy('go-v', module, 'v1.2.0', await libraryZip(module, 'v1.2.0'))).statusCode).toBe(201);
    expect(await stored('go-a', `${module}/@v/v1.2.0.zip`)).toBe(200);
  });

  it('issue 23 Go: an unknown module answers 404 (the go command then tries its next proxy)', async () => {
    const res = await req('GET', '/repository/go-v/granary.test/nobody/@v/list');
    expect(res.statusCode).toBe(404);
    expect(res.body).toContain('not found');
  });
});

const goVersion = (v: string) => (Number(v.split('.')[0]) >= 2 ? `v${v}+incompatible` : `v${v}`);

describeFormatProtocolConformance(goFormat, {
  name: 'granary.test/conformance',
  async publish(t, repoKey, name, version) {
    const res = await t.app.inject({
      method: 'PUT',
      url: `/repository/${repoKey}/${escapePath(name)}/@v/${goVersion(version)}.zip`,
      headers: { authorization: ADMIN_AUTH },
      // v2 and later of a module whose path has no /v2: +incompatible, without a go.mod
      payload: await libraryZip(name, goVersion(version), {
        goMod: goVersion(version).endsWith('+incompatible') ? null : undefined,
      }),
    });
    if (res.statusCode !== 201) throw new Error(`deploy failed: ${res.statusCode} ${res.body}`);
  },
  async read(t, repoKey, name) {
    const res = await t.app.inject({
      url: `/repository/${repoKey}/${escapePath(name)}/@v/list`,
      headers: { authorization: ADMIN_AUTH },
    });
    if (res.statusCode === 404) return null;
    const versions = res.body.split('\n').filter(Boolean);
    return {
      versions: versions.map((v) => v.slice(1).replace(/\+incompatible$/, '')),
      fileUrls: versions.map((v) => `http://localhost/repository/${repoKey}/${escapePath(name)}/@v/${v}.zip`),
    };
  },
  indexVersion: (v) => `v${v}`,
  remoteSettings: { username: 'admin', password: TEST_ADMIN_PASSWORD },
});
