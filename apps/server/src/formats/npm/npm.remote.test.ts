import http from 'node:http';
import type { AddressInfo } from 'node:net';
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import {
  basicAuth,
  createTestApp,
  TEST_ADMIN_PASSWORD,
  type TestApp,
  testEngine,
} from '../../testing/index.ts';
import { integrityOf, makeTarball, publishDocument, shasumOf } from './test-support.ts';

const ADMIN = basicAuth('admin', TEST_ADMIN_PASSWORD);

interface Served {
  /** the packument's name field (default: the package's own) */
  claims?: string;
  version: string;
  /** the tarball the packument's dist describes */
  described: Buffer;
  /** what the upstream sends for the tarball */
  sent: Buffer | string;
  /** leave `dist.integrity` out (shasum only), or `shasum` out */
  omit?: 'integrity' | 'shasum';
}

/**
 * A hostile npm registry on loopback: each package is served as `served` says (a packument naming
 * another package, a tarball that is not the one the packument describes, an HTML page), and
 * every request is counted.
 */
function startRegistry() {
  const served = new Map<string, Served>();
  const hits: string[] = [];
  const server = http.createServer((req, res) => {
    const url = decodeURIComponent(req.url ?? '');
    hits.push(url);
    const base = `http://127.0.0.1:${(server.address() as AddressInfo).port}/registry`;
    const tarball = /^\/registry\/(.+)\/-\/[^/]+\.tgz$/.exec(url);
    if (tarball && served.has(tarball[1]!)) {
      const s = served.get(tarball[1]!)!;
      const html = typeof s.sent === 'string';
      res.writeHead(200, { 'content-type': html ? 'text/html' : 'application/octet-stream' });
      return res.end(s.sent);
    }
    const name = url.replace(/^\/registry\//, '');
    const s = served.get(name);
    if (!s) return res.writeHead(404, { 'content-type': 'application/json' }).end('{"error":"Not found"}');
    const file = `${name.split('/').at(-1)}-${s.version}.tgz`;
    const dist: Record<string, string> = {
      tarball: `${base}/${name}/-/${file}`,
      ...(s.omit === 'integrity' ? {} : { integrity: integrityOf(s.described) }),
      ...(s.omit === 'shasum' ? {} : { shasum: shasumOf(s.described) }),
    };
    res.writeHead(200, { 'content-type': 'application/json' });
    res.end(
      JSON.stringify({
        name: s.claims ?? name,
        'dist-tags': { latest: s.version },
        versions: { [s.version]: { name, version: s.version, dist } },
      }),
    );
  });
  return { server, served, hits };
}

describe(`npm remote: what comes back from the upstream is verified before it is cached (${testEngine})`, () => {
  let t: TestApp;
  let registry: ReturnType<typeof startRegistry>;
  const get = (url: string, headers: Record<string, string> = {}) =>
    t.app.inject({ url, headers: { authorization: ADMIN, ...headers } });
  /** The remote's cache as the storage API lists it. */
  const cached = async (path: string) => (await get(`/api/storage/npm-remote-cache/${path}`)).statusCode;
  const hitsOf = (path: string) => registry.hits.filter((h) => h === `/registry/${path}`).length;
  const good = (name: string, version = '1.0.0', files: Record<string, string> = {}) =>
    makeTarball({ name, version }, files);

  beforeAll(async () => {
    registry = startRegistry();
    await new Promise<void>((r) => registry.server.listen(0, '127.0.0.1', r));
    const port = (registry.server.address() as AddressInfo).port;
    t = await createTestApp({ outboundAllowlist: '127.0.0.1' });
    const url = `http://127.0.0.1:${port}/registry/`;
    for (const [key, body] of [
      // Packuments are revalidated on every read, so a fixed upstream is seen at once.
      [
        'npm-remote',
        {
          rclass: 'remote',
          packageType: 'npm',
          url,
          retrievalCachePeriodSecs: 0,
          excludesPattern: '@acme/**',
        },
      ],
      ['npm-local', { rclass: 'local', packageType: 'npm' }],
      ['npm-upstream', { rclass: 'remote', packageType: 'npm', url, retrievalCachePeriodSecs: 0 }],
      [
        'npm',
        {
          rclass: 'virtual',
          packageType: 'npm',
          repositories: ['npm-local', 'npm-upstream'],
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
  afterAll(async () => {
    await t?.close();
    await new Promise((r) => registry?.server.close(r));
  });

  it('issue 24: a remote refresh replaces the kept packument bytes, asked with and without gzip, through the remote and the virtual', async () => {
    const { gunzipSync } = await import('node:zlib');
    const name = 'refreshed-pkg';
    const latest = async (url: string, gzip: boolean) => {
      const res = await get(url, gzip ? { 'accept-encoding': 'gzip' } : {});
      expect(res.statusCode, res.body).toBe(200);
      const body = res.headers['content-encoding'] === 'gzip' ? gunzipSync(res.rawPayload) : res.rawPayload;
      return JSON.parse(body.toString())['dist-tags'].latest;
    };
    const one = await good(name);
    registry.served.set(name, { version: '1.0.0', described: one, sent: one });
    for (const url of [`/repository/npm-remote/${name}`, `/repository/npm/${name}`])
      for (const gzip of [false, true]) expect(await latest(url, gzip)).toBe('1.0.0');
    const two = await good(name, '2.0.0');
    registry.served.set(name, { version: '2.0.0', described: two, sent: two });
    for (const url of [`/repository/npm-remote/${name}`, `/repository/npm/${name}`])
      for (const gzip of [false, true]) expect(await latest(url, gzip)).toBe('2.0.0');
  });

  it('issue 12 §4: a tarball whose package.json names another package answers 502 and is not cached; fixed upstream → served', async () => {
    const evil = await good('someone-else');
    registry.served.set('named-wrong', { version: '1.0.0', described: evil, sent: evil });
    const path = 'named-wrong/-/named-wrong-1.0.0.tgz';
    const res = await get(`/repository/npm-remote/${path}`);
    expect(res.statusCode, res.body).toBe(502);
    expect(res.json().error).toMatch(/someone-else@1\.0\.0 where named-wrong@1\.0\.0 was asked/);
    expect(await cached(path)).toBe(404);

    const fixed = await good('named-wrong');
    registry.served.set('named-wrong', { version: '1.0.0', described: fixed, sent: fixed });
    const again = await get(`/repository/npm-remote/${path}`);
    expect(again.statusCode, again.body).toBe(200);
    expect(again.rawPayload.equals(fixed)).toBe(true);
    expect(await cached(path)).toBe(200);
  });

  it("issue 12 §4: a tarball that is not the one the packument's integrity (sha512) or shasum describes answers 502; nothing cached", async () => {
    const described = await good('swapped');
    const sent = await good('swapped', '1.0.0', { 'evil.js': 'steal()' });
    registry.served.set('swapped', { version: '1.0.0', described, sent, omit: 'shasum' });
    const path = 'swapped/-/swapped-1.0.0.tgz';
    const bySri = await get(`/repository/npm-remote/${path}`);
    expect(bySri.statusCode, bySri.body).toBe(502);
    expect(bySri.json().error).toMatch(/integrity sha512-.+ is not the packument's sha512-/);
    expect(await cached(path)).toBe(404);

    registry.served.set('swapped', { version: '1.0.0', described, sent, omit: 'integrity' });
    const bySha1 = await get(`/repository/npm-remote/${path}`);
    expect(bySha1.statusCode, bySha1.body).toBe(502);
    expect(bySha1.json().error).toContain(`is not its index's ${shasumOf(described)}`);
    expect(await cached(path)).toBe(404);
    expect(hitsOf(path)).toBe(2);
  });

  it('issue 12 §4: a packument naming another package answers 502 and is not cached; fixed → the rewritten packument', async () => {
    const tgz = await good('victim');
    registry.served.set('victim', { claims: 'attacker', version: '1.0.0', described: tgz, sent: tgz });
    const res = await get('/repository/npm-remote/victim');
    expect(res.statusCode, res.body).toBe(502);
    expect(res.json().error).toMatch(/the packument of "attacker" where 'victim' was asked/);
    expect(await cached('.npm/victim/package.json')).toBe(404);

    registry.served.set('victim', { version: '1.0.0', described: tgz, sent: tgz });
    const fixed = await get('/repository/npm-remote/victim');
    expect(fixed.statusCode, fixed.body).toBe(200);
    expect(fixed.json().versions['1.0.0'].dist.tarball).toBe(
      'http://localhost:80/repository/npm-remote/victim/-/victim-1.0.0.tgz',
    );
  });

  it('issue 12 §5: an HTML page where a tarball is expected answers 502, is not cached, and the next request asks the upstream again', async () => {
    const tgz = await good('walled');
    registry.served.set('walled', {
      version: '1.0.0',
      described: tgz,
      sent: '<!DOCTYPE html><html><body>Sign in</body></html>',
    });
    const path = 'walled/-/walled-1.0.0.tgz';
    const res = await get(`/repository/npm-remote/${path}`);
    expect(res.statusCode, res.body).toBe(502);
    expect(res.json().error).toContain('an HTML page where a gzip archive was expected');
    expect(await cached(path)).toBe(404);

    registry.served.set('walled', { version: '1.0.0', described: tgz, sent: tgz });
    const again = await get(`/repository/npm-remote/${path}`);
    expect(again.statusCode, again.body).toBe(200);
    expect(again.rawPayload.equals(tgz)).toBe(true);
    expect(hitsOf(path)).toBe(2);
  });

  it('issue 12 §6: path parameters are refused (400) and never reach the upstream; only packuments and their tarballs are ever asked of it', async () => {
    const tgz = await good('is-even');
    registry.served.set('is-even', { version: '1.0.0', described: tgz, sent: tgz });
    const before = hitsOf('is-even');
    const withParams = await get('/repository/npm-remote/is-even;x=1');
    expect(withParams.statusCode, withParams.body).toBe(400);
    expect(withParams.json().error).toMatch(/Path parameters/);
    // Not a package path: answered 404 without asking the upstream.
    expect((await get('/repository/npm-remote/Is-Even')).statusCode).toBe(404);
    expect((await get('/repository/npm-remote/is-even/-/other-file.txt')).statusCode).toBe(404);
    expect(registry.hits.some((h) => /Is-Even|other-file/.test(h))).toBe(false);
    expect(hitsOf('is-even')).toBe(before);
    // The packument is served rewritten; the raw upstream document is never served as it came.
    const packument = await get('/repository/npm-remote/is-even');
    expect(packument.statusCode).toBe(200);
    expect(packument.body).not.toContain('127.0.0.1');
    expect((await get('/repository/npm-remote/.npm/is-even/package.json')).statusCode).toBe(404);
    expect((await get('/repository/npm/.npm/is-even/package.json')).statusCode).toBe(404);
  });

  it('issue 12 §7: exclude patterns match as users write them: `@acme/**` keeps every @acme name from the upstream', async () => {
    const tgz = await good('@acme/secret');
    registry.served.set('@acme/secret', { version: '1.0.0', described: tgz, sent: tgz });
    expect((await get('/repository/npm-remote/@acme%2fsecret')).statusCode).toBe(404);
    expect((await get('/repository/npm-remote/@acme/secret/-/secret-1.0.0.tgz')).statusCode).toBe(404);
    expect(registry.hits.some((h) => h.includes('@acme'))).toBe(false);
  });

  it('issue 12 §7: through a virtual repository, a name a local member holds is never asked of the upstream (namespaceConfusionProtection, on by default)', async () => {
    const manifest = { name: '@corp/internal', version: '1.0.0' };
    const published = await t.app.inject({
      method: 'PUT',
      url: '/repository/npm/@corp%2finternal',
      headers: { authorization: ADMIN, 'content-type': 'application/json' },
      payload: JSON.stringify(publishDocument(manifest, await makeTarball(manifest))),
    });
    expect(published.statusCode, published.body).toBe(201);
    const upstreamCopy = await good('@corp/internal', '99.0.0');
    registry.served.set('@corp/internal', { version: '99.0.0', described: upstreamCopy, sent: upstreamCopy });
    const res = await get('/repository/npm/@corp%2finternal');
    expect(res.statusCode, res.body).toBe(200);
    expect(Object.keys(res.json().versions)).toEqual(['1.0.0']);
    expect((await get('/repository/npm/@corp/internal/-/internal-99.0.0.tgz')).statusCode).toBe(404);
    expect(registry.hits.some((h) => h.includes('@corp'))).toBe(false);
    expect((await get('/api/repositories/npm-upstream')).json().namespaceConfusionProtection).toBe(true);
  });
});
