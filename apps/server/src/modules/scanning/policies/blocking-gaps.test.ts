import http from 'node:http';
import type { AddressInfo } from 'node:net';
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import yazl from 'yazl';
import { testImage } from '../../../formats/docker/oci-testing.ts';
import { integrityOf, makeTarball, shasumOf } from '../../../formats/npm/test-support.ts';
import {
  basicAuth,
  createTestApp,
  TEST_ADMIN_PASSWORD,
  type TestApp,
  testEngine,
} from '../../../testing/index.ts';
import { findRepository } from '../../repositories/repositories.api.ts';

const ADMIN = basicAuth('admin', TEST_ADMIN_PASSWORD);
const READER = basicAuth('reader', 'Reader-pa55word!');
const OUTSIDER = basicAuth('outsider', 'Outsider-pa55word!');
const UI = '/ui/api/v1/xray/ui';
const CVSS = 'CVSS:3.1/AV:N/AC:L/PR:N/UI:N/S:U/C:H/I:H/A:H';

async function osvArchive(records: object[]): Promise<Buffer> {
  const zip = new yazl.ZipFile();
  for (const r of records) zip.addBuffer(Buffer.from(JSON.stringify(r)), `${(r as { id: string }).id}.json`);
  zip.end();
  const chunks: Buffer[] = [];
  for await (const c of zip.outputStream) chunks.push(c as Buffer);
  return Buffer.concat(chunks);
}

/**
 * A public registry on loopback: npm packuments and tarballs under `/registry/`, the same tarballs as
 * plain files under `/files/` (a generic remote's upstream); every request is counted.
 */
function startUpstream(tarballs: Map<string, Buffer>) {
  const hits: string[] = [];
  const server = http.createServer((req, res) => {
    const url = decodeURIComponent(req.url ?? '');
    hits.push(url);
    const base = `http://127.0.0.1:${(server.address() as AddressInfo).port}`;
    const file = /^\/(?:files|registry\/[^/]+\/-)\/([a-z]+)-1\.0\.0\.tgz$/.exec(url);
    if (file && tarballs.has(file[1]!)) {
      res.writeHead(200, { 'content-type': 'application/octet-stream' });
      return res.end(tarballs.get(file[1]!));
    }
    const name = url.replace(/^\/registry\//, '');
    const tgz = tarballs.get(name);
    if (!tgz) return res.writeHead(404, { 'content-type': 'application/json' }).end('{"error":"Not found"}');
    const dist = {
      tarball: `${base}/registry/${name}/-/${name}-1.0.0.tgz`,
      integrity: integrityOf(tgz),
      shasum: shasumOf(tgz),
    };
    res.writeHead(200, { 'content-type': 'application/json' });
    res.end(
      JSON.stringify({
        name,
        'dist-tags': { latest: '1.0.0' },
        versions: { '1.0.0': { name, version: '1.0.0', license: 'MIT', dist } },
      }),
    );
  });
  return { server, hits };
}

describe(`issue 16 blocking: verdict before serving, blocked scans, image layers, the security search (${testEngine})`, () => {
  let t: TestApp;
  let upstream: ReturnType<typeof startUpstream>;
  const tarballs = new Map<string, Buffer>();
  const api = (method: 'GET' | 'POST' | 'PUT', url: string, payload?: object, auth = ADMIN) =>
    t.app.inject({
      method,
      url,
      headers: { authorization: auth },
      ...(payload !== undefined ? { payload } : {}),
    });
  const ok = async (res: Promise<{ statusCode: number; body: string }>) => {
    const r = await res;
    expect(r.statusCode, r.body).toBeLessThan(300);
  };

  beforeAll(async () => {
    for (const name of ['evil', 'fine', 'other'])
      tarballs.set(name, await makeTarball({ name, version: '1.0.0', license: 'MIT' }));
    upstream = startUpstream(tarballs);
    await new Promise<void>((r) => upstream.server.listen(0, '127.0.0.1', r));
    const base = `http://127.0.0.1:${(upstream.server.address() as AddressInfo).port}`;
    t = await createTestApp({ outboundAllowlist: '127.0.0.1' });
    for (const [name, password] of [
      ['reader', 'Reader-pa55word!'],
      ['outsider', 'Outsider-pa55word!'],
    ])
      await ok(api('PUT', `/api/security/users/${name}`, { password }));
    for (const [key, body] of [
      ['npm-remote', { rclass: 'remote', packageType: 'npm', url: `${base}/registry/` }],
      ['generic-remote', { rclass: 'remote', packageType: 'generic', url: `${base}/files/` }],
      ['npm-open', { rclass: 'remote', packageType: 'npm', url: `${base}/registry/` }],
      ['docker-local', { rclass: 'local', packageType: 'docker' }],
    ] as const)
      await ok(api('PUT', `/api/repositories/${key}`, body));
    await ok(
      api('PUT', '/api/security/permissions/search-readers', {
        name: 'search-readers',
        repo: {
          repositories: ['npm-remote'],
          include_patterns: ['**'],
          exclude_patterns: [],
          actions: { users: { reader: ['read'] } },
        },
      }),
    );
    // The image's scan is handed to the policies below: the pipeline leaves docker-local alone.
    await ok(api('PUT', `${UI}/indexedRepos`, { indexed: ['npm-remote', 'generic-remote'] }));
    const imported = await t.app.inject({
      method: 'POST',
      url: '/api/scanning/advisories/import',
      headers: { authorization: ADMIN, 'content-type': 'application/zip' },
      payload: await osvArchive([
        {
          id: 'GHSA-evil-0001',
          modified: '2030-01-01T00:00:00Z',
          aliases: ['CVE-2030-4242'],
          summary: 'evil runs code on install',
          severity: [{ type: 'CVSS_V3', score: CVSS }],
          affected: [
            {
              package: { ecosystem: 'npm', name: 'evil' },
              ranges: [{ type: 'SEMVER', events: [{ introduced: '0' }, { fixed: '2.0.0' }] }],
            },
          ],
        },
      ]),
    });
    expect(imported.statusCode, imported.body).toBe(200);
    const rule = (unscanned: boolean) => ({
      name: 'high-and-up',
      priority: 1,
      criteria: { min_severity: 'High' },
      actions: { block_download: { active: true, unscanned } },
    });
    await ok(api('POST', '/xray/api/v2/policies', { name: 'gate', type: 'security', rules: [rule(true)] }));
    await ok(api('POST', '/xray/api/v2/policies', { name: 'block', type: 'security', rules: [rule(false)] }));
    const watch = (name: string, repos: string[], policy: string) => ({
      general_data: { name, active: true },
      project_resources: { resources: repos.map((r) => ({ type: 'repository', name: r })) },
      assigned_policies: [{ name: policy, type: 'security' }],
    });
    await ok(api('POST', '/xray/api/v2/watches', watch('remotes', ['npm-remote', 'generic-remote'], 'gate')));
    await ok(api('POST', '/xray/api/v2/watches', watch('images', ['docker-local'], 'block')));
  });
  afterAll(async () => {
    await t?.close();
    await new Promise((r) => upstream?.server.close(r));
  });

  it("issue 16 Blocking: with 'block unscanned' on, a proxied npm tarball is cached, scanned and refused on its first download (npm {error}); a clean one is served", async () => {
    const evil = await api('GET', '/repository/npm-remote/evil/-/evil-1.0.0.tgz');
    expect(evil.statusCode, evil.body).toBe(403);
    expect(evil.json().error).toContain('GHSA-evil-0001');
    const fine = await api('GET', '/repository/npm-remote/fine/-/fine-1.0.0.tgz');
    expect(fine.statusCode, fine.body).toBe(200);
    expect(fine.rawPayload.equals(tarballs.get('fine')!)).toBe(true);
    // The refusal stands, from the cache: the upstream was asked for the tarball once.
    expect((await api('GET', '/repository/npm-remote/evil/-/evil-1.0.0.tgz')).statusCode).toBe(403);
    expect(upstream.hits.filter((h) => h === '/registry/evil/-/evil-1.0.0.tgz')).toHaveLength(1);
    // A remote no such watch covers serves the same tarball as before.
    expect((await api('GET', '/repository/npm-open/evil/-/evil-1.0.0.tgz')).statusCode).toBe(200);
  });

  it("issue 16 Blocking: a generic remote's file streamed from its upstream is held for its verdict: the affected archive is refused, the clean one served whole", async () => {
    const evil = await api('GET', '/repository/generic-remote/evil-1.0.0.tgz');
    expect(evil.statusCode, evil.body).toBe(403);
    expect(evil.body).toContain('GHSA-evil-0001');
    const fine = await api('GET', '/repository/generic-remote/fine-1.0.0.tgz');
    expect(fine.statusCode, fine.body).toBe(200);
    expect(fine.rawPayload.equals(tarballs.get('fine')!)).toBe(true);
    expect(fine.headers['x-checksum-sha256']).toBeDefined();
  });

  it('issue 16 Console: the artifact scan answer says why a blocked file is blocked (spec 001 §7 scan), null for a clean one', async () => {
    const evil = await api('GET', `${UI}/scan/npm-remote/evil/-/evil-1.0.0.tgz`);
    expect(evil.statusCode, evil.body).toBe(200);
    expect(evil.json()).toMatchObject({ status: 'scanned', vulnerabilities: { critical: 1 } });
    expect(evil.json().blocked).toContain("blocked by policy 'gate' of watch 'remotes'");
    expect(evil.json().blocked).toContain('GHSA-evil-0001');
    const fine = await api('GET', `${UI}/scan/npm-remote/fine/-/fine-1.0.0.tgz`);
    expect(fine.json()).toMatchObject({ status: 'scanned', blocked: null });
  });

  it('issue 16 Blocking (OCI): the layers and config of a blocked image are refused with DENIED; another image’s layers are served', async () => {
    const push = async (name: string) => {
      const image = testImage();
      for (const b of [image.config, ...image.layers])
        await t.app.inject({
          method: 'POST',
          url: `/v2/docker-local/${name}/blobs/uploads/?digest=${b.digest}`,
          headers: { authorization: ADMIN, 'content-type': 'application/octet-stream' },
          payload: b.bytes,
        });
      const res = await t.app.inject({
        method: 'PUT',
        url: `/v2/docker-local/${name}/manifests/1.0`,
        headers: { authorization: ADMIN, 'content-type': image.mediaType },
        payload: image.manifest,
      });
      expect(res.statusCode, res.body).toBe(201);
      return image;
    };
    const app = await push('app');
    const other = await push('other');
    const repo = await findRepository(t.app.granary.database.db, 'docker-local');
    const purl = `pkg:oci/app@${encodeURIComponent(app.digest)}`;
    await t.app.scanPolicies.onScan({
      repositoryId: repo!.id,
      repoKey: 'docker-local',
      packageType: 'docker',
      path: 'app/1.0/manifest.json',
      sha256: app.digest.slice(7),
      status: 'scanned',
      error: null,
      scannedAt: new Date(),
      artifact: {
        root: { purl, ecosystem: 'Debian', name: 'app', version: '1.0', licenses: [] },
        components: [],
        dependencies: {},
      },
      findings: [
        {
          purl,
          finding: {
            advisoryId: 'DSA-2030-1',
            aliases: [],
            summary: 'openssl in the image',
            severity: 'High',
            cvssScore: 8.1,
            cvssVector: null,
            fixedVersions: [],
            references: [],
            modified: '2030-01-01T00:00:00Z',
          },
        },
      ],
    });
    expect((await api('GET', '/v2/docker-local/app/manifests/1.0')).statusCode).toBe(403);
    for (const b of [app.config, ...app.layers]) {
      const res = await api('GET', `/v2/docker-local/app/blobs/${b.digest}`);
      expect(res.statusCode, b.digest).toBe(403);
      expect(res.json().errors[0]).toMatchObject({ code: 'DENIED' });
      expect(res.json().errors[0].message).toContain('DSA-2030-1');
    }
    for (const b of [other.config, ...other.layers]) {
      const res = await api('GET', `/v2/docker-local/other/blobs/${b.digest}`);
      expect(res.statusCode, b.digest).toBe(200);
      expect(res.rawPayload.equals(b.bytes)).toBe(true);
    }
  });

  it('issue 16 / spec 001 §2 §7 §9: the "Xray security and compliance" search finds components by name, purl, issue id and CVE, newest first, among what the caller may read', async () => {
    // Both remotes hold evil@1.0.0 once the blocking tests ran (refused files stay cached and scanned).
    const search = async (query: string, auth = ADMIN, page = 1) => {
      const res = await api('POST', `${UI}/component/paginatedsearch`, { query, page }, auth);
      expect(res.statusCode, res.body).toBe(200);
      return res.json() as { total: number; rows: Record<string, unknown>[] };
    };
    const byName = await search('EVIL');
    expect(byName.rows.map((r) => r.repoKey).sort()).toEqual(['generic-remote', 'npm-remote']);
    expect(byName.rows[0]).toMatchObject({
      componentId: 'pkg:npm/evil@1.0.0',
      name: 'evil',
      version: '1.0.0',
      pkgType: 'npm',
      vulnerabilities: { critical: 1 },
      licenses: ['MIT'],
      // the advisory's id names the package too
      issues: ['GHSA-evil-0001'],
    });
    const stamps = byName.rows.map((r) => String(r.lastUpdated));
    expect([...stamps].sort().reverse()).toEqual(stamps);
    const byCve = await search('cve-2030-4242');
    expect(byCve.total).toBe(2);
    expect(byCve.rows[0]!.issues).toEqual(['GHSA-evil-0001', 'CVE-2030-4242']);
    expect((await search('GHSA-evil')).rows[0]!.componentId).toBe('pkg:npm/evil@1.0.0');
    expect((await search('pkg:npm/fine@')).rows.map((r) => r.name)).toEqual(['fine', 'fine']);
    expect((await search('no-such-thing')).total).toBe(0);
    // The reader may read npm-remote only; the outsider nothing.
    expect((await search('evil', READER)).rows.map((r) => r.repoKey)).toEqual(['npm-remote']);
    expect(await search('evil', OUTSIDER)).toEqual({ total: 0, rows: [] });
    // 20 a page (§9): page 2 of a short result is empty but keeps the total.
    expect(await search('evil', ADMIN, 2)).toEqual({ total: 2, rows: [] });
  });

  it('issue 16 Console and API: /api/openapi.json lists the REST twins with their body and answer schemas', async () => {
    const spec = (await api('GET', '/api/openapi.json')).json();
    const op = (path: string, method: string) => {
      expect(spec.paths[path]?.[method], `${method.toUpperCase()} ${path}`).toBeDefined();
      return spec.paths[path][method];
    };
    const body = (path: string, method = 'post') =>
      op(path, method).requestBody.content['application/json'].schema;
    // biome-ignore lint/suspicious/noExplicitAny: the OpenAPI document's JSON, read loosely by the assertions
    const answer = (path: string, method = 'get'): Record<string, any> =>
      Object.values(op(path, method).responses['200'].content as Record<string, { schema: object }>)[0]!
        .schema;
    expect(body('/xray/api/v2/policies')).toMatchObject({
      properties: { name: {}, type: {}, rules: { type: 'array' } },
      required: expect.arrayContaining(['name', 'type', 'rules']),
    });
    expect(body('/xray/api/v2/policies/{name}', 'put').properties).toHaveProperty('rules');
    expect(body('/xray/api/v2/watches').properties).toMatchObject({
      general_data: {},
      project_resources: {},
      assigned_policies: {},
    });
    expect(body('/xray/api/v1/ignore_rules').properties).toMatchObject({
      notes: {},
      expiration_date: {},
      ignore_filters: {},
    });
    expect(body('/xray/api/v1/violations').properties).toHaveProperty('filters');
    expect(JSON.stringify(body('/api/scanning/advisories/import'))).toContain('"url"');
    expect(answer('/xray/api/v2/policies')).toMatchObject({ type: 'array' });
    expect(answer('/xray/api/v2/watches/{name}').properties).toHaveProperty('assigned_policies');
    expect(answer('/xray/api/v1/ignore_rules').properties).toMatchObject({ data: {}, total_count: {} });
    expect(answer('/api/scanning/advisories/status').properties).toHaveProperty('total');
    expect(answer('/api/sbom/{repoKey}/{*}')).toBeDefined();
    expect(op('/xray/api/v1/summary/artifact', 'post').requestBody).toBeDefined();
  });

  it('issue 16 / spec 001 §7: getXrayVersion answers the product version', async () => {
    const version = (await api('GET', '/api/system/version')).json();
    const res = await api('GET', `${UI}/homepage/getXrayVersion`);
    expect(res.statusCode).toBe(200);
    expect(res.json()).toEqual({ xray_version: version.version, xray_revision: version.revision });
  });
});
