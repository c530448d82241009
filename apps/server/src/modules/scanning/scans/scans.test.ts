import { sql } from 'drizzle-orm';
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import yazl from 'yazl';
import { testImage } from '../../../formats/docker/oci-testing.ts';
import { makeTarball, publishDocument } from '../../../formats/npm/test-support.ts';
import { queryRows } from '../../../platform/db/index.ts';
import {
  basicAuth,
  createTestApp,
  TEST_ADMIN_PASSWORD,
  type TestApp,
  testEngine,
} from '../../../testing/index.ts';

const ADMIN = basicAuth('admin', TEST_ADMIN_PASSWORD);
const READER = basicAuth('reader', 'Reader-pa55word!');
const OUTSIDER = basicAuth('outsider', 'Outsider-pa55word!');
const UI = '/ui/api/v1/xray/ui';
const REPO = 'npm-scan';
const CVSS = 'CVSS:3.1/AV:N/AC:L/PR:N/UI:N/S:U/C:H/I:H/A:H';

/** An OSV record for an npm package: affected from `introduced` until `fixed`. */
function osv(id: string, name: string, introduced: string, fixed: string, modified: string, cve?: string) {
  return {
    id,
    modified,
    published: '2024-01-01T00:00:00Z',
    aliases: cve ? [cve] : [],
    summary: `${name} is vulnerable (${id})`,
    severity: [{ type: 'CVSS_V3', score: CVSS }],
    affected: [
      {
        package: { ecosystem: 'npm', name },
        ranges: [{ type: 'SEMVER', events: [{ introduced }, { fixed }] }],
      },
    ],
    references: [{ type: 'ADVISORY', url: `https://example.test/advisories/${id}` }],
  };
}

async function osvArchive(records: object[]): Promise<Buffer> {
  const zip = new yazl.ZipFile();
  for (const r of records) zip.addBuffer(Buffer.from(JSON.stringify(r)), `${(r as { id: string }).id}.json`);
  zip.end();
  const chunks: Buffer[] = [];
  for await (const c of zip.outputStream) chunks.push(c as Buffer);
  return Buffer.concat(chunks);
}

// biome-ignore lint/suspicious/noExplicitAny: the answer's JSON, read loosely by the assertions
type ScanBody = Record<string, any>;

const lead = (name: string, version: string) => `${name}/-/${name}-${version}.tgz`;

describe(`issue 16: the scan pipeline (${testEngine})`, () => {
  let t: TestApp;
  const api = (method: 'GET' | 'POST' | 'PUT' | 'DELETE', url: string, payload?: object, auth = ADMIN) =>
    t.app.inject({
      method,
      url,
      headers: { authorization: auth },
      ...(payload !== undefined ? { payload } : {}),
    });

  async function importOsv(records: object[]) {
    const res = await t.app.inject({
      method: 'POST',
      url: '/api/scanning/advisories/import',
      headers: { authorization: ADMIN, 'content-type': 'application/zip' },
      payload: await osvArchive(records),
    });
    expect(res.statusCode, res.body).toBe(200);
  }

  async function publish(name: string, version: string, license = 'MIT') {
    const manifest = { name, version, license, description: `${name} ${version}` };
    const res = await t.app.inject({
      method: 'PUT',
      url: `/repository/${REPO}/${name}`,
      headers: { authorization: ADMIN, 'content-type': 'application/json' },
      payload: publishDocument(manifest, await makeTarball(manifest)),
    });
    expect(res.statusCode, res.body).toBeLessThan(300);
  }

  /** Polls the console's scan of a file until `done` holds (at most 10 s: issue 16 acceptance). */
  async function scanOf(path: string, done: (s: ScanBody) => boolean) {
    const until = Date.now() + 10_000;
    for (;;) {
      const res = await api('GET', `${UI}/scan/${REPO}/${path}`);
      const body = res.json();
      if (res.statusCode === 200 && done(body)) return body;
      if (Date.now() > until) throw new Error(`scan of ${path} not done: ${res.statusCode} ${res.body}`);
      await new Promise((r) => setTimeout(r, 200));
    }
  }

  async function versionRow(name: string, version: string) {
    const [row] = await queryRows<{
      vulnerabilities: Record<string, number>;
      cves: string[];
      licenses: string[];
    }>(
      t.app.granary.database.db,
      sql`select v.vulnerabilities, v.cves, v.licenses from package_versions v join packages p on p.id = v.package_id
          where p.name = ${name} and v.version = ${version}`,
    );
    return row;
  }

  beforeAll(async () => {
    t = await createTestApp();
    for (const [name, password] of [
      ['reader', 'Reader-pa55word!'],
      ['outsider', 'Outsider-pa55word!'],
    ])
      expect((await api('PUT', `/api/security/users/${name}`, { password })).statusCode).toBeLessThan(300);
    expect(
      (await api('PUT', `/api/repositories/${REPO}`, { rclass: 'local', packageType: 'npm' })).statusCode,
    ).toBe(201);
    expect(
      (
        await api('PUT', '/api/security/permissions/scan-readers', {
          name: 'scan-readers',
          repo: {
            repositories: [REPO],
            include_patterns: ['**'],
            exclude_patterns: [],
            actions: { users: { reader: ['read'] } },
          },
        })
      ).statusCode,
    ).toBeLessThan(300);
    await importOsv([
      osv('GHSA-aaaa-bbbb-cccc', 'left-padder', '0', '1.2.0', '2024-02-01T00:00:00Z', 'CVE-2024-0001'),
    ]);
  }, 60_000);

  afterAll(async () => {
    await t?.close();
  });

  it('issue 16: a published affected npm version is scanned within 10 s: the issue in the scan API, counts on the version; a fixed version has none', async () => {
    await publish('left-padder', '1.0.0');
    await publish('left-padder', '1.2.0');
    const bad = await scanOf(lead('left-padder', '1.0.0'), (s) => s.status === 'scanned');
    expect(bad.issues.map((i: { issueId: string }) => i.issueId)).toEqual(['GHSA-aaaa-bbbb-cccc']);
    expect(bad.issues[0]).toMatchObject({
      severity: 'Critical',
      cves: ['CVE-2024-0001'],
      componentPurl: 'pkg:npm/left-padder@1.0.0',
      fixedVersions: ['1.2.0'],
    });
    expect(bad.vulnerabilities).toEqual({ critical: 1 });
    expect(bad.licenses).toEqual(['MIT']);
    expect(await versionRow('left-padder', '1.0.0')).toMatchObject({
      vulnerabilities: { critical: 1 },
      cves: ['CVE-2024-0001'],
      licenses: ['MIT'],
    });
    const good = await scanOf(lead('left-padder', '1.2.0'), (s) => s.status === 'scanned');
    expect(good.issues).toEqual([]);
    expect(good.vulnerabilities).toEqual({});
    expect((await versionRow('left-padder', '1.2.0'))?.vulnerabilities).toEqual({});
  });

  it('issue 16 / spec 001 §3: scan status strings — scanned, not scanned (an unindexed repository), Xray DONE', async () => {
    const status = await api('POST', `${UI}/scanStatus`, {
      type: 'artifact',
      data: { repoKey: REPO, path: lead('left-padder', '1.0.0') },
    });
    expect(status.json()).toMatchObject({ status: 'scanned' });
    const byVersion = await api('POST', `${UI}/scanStatus`, {
      type: 'version',
      data: { repoKey: REPO, packageId: 'npm://left-padder', version: '1.2.0' },
    });
    expect(byVersion.json()).toMatchObject({ status: 'scanned' });
    const xray = await api('POST', '/xray/api/v1/artifact/status', {
      repo: REPO,
      path: lead('left-padder', '1.0.0'),
    });
    expect(xray.json().overall.status).toBe('DONE');

    // A repository taken off the indexed list: its new files are not scanned.
    const repos = (await api('GET', `${UI}/indexedRepos`)).json();
    expect(repos.indexed.map((r: { name: string }) => r.name)).toContain(REPO);
    const off = await api('PUT', `${UI}/indexedRepos`, {
      indexed: repos.indexed.map((r: { name: string }) => r.name).filter((n: string) => n !== REPO),
    });
    expect(off.json().notIndexed.map((r: { name: string }) => r.name)).toContain(REPO);
    await publish('left-padder', '1.1.0');
    await new Promise((r) => setTimeout(r, 2500));
    const notScanned = await api('POST', `${UI}/scanStatus`, {
      type: 'artifact',
      data: { repoKey: REPO, path: lead('left-padder', '1.1.0') },
    });
    expect(notScanned.json()).toMatchObject({ status: 'not scanned', scannedAt: null });
    expect(
      (
        await api('POST', '/xray/api/v1/artifact/status', { repo: REPO, path: lead('left-padder', '1.1.0') })
      ).json().overall.status,
    ).toBe('NOT_SCANNED');
    // Scan now on an unindexed repository is refused; indexed again, scan now scans it.
    expect(
      (
        await api('POST', `${UI}/scanNow`, {
          type: 'artifact',
          data: { repoKey: REPO, path: lead('left-padder', '1.1.0') },
        })
      ).statusCode,
    ).toBe(409);
    await api('PUT', `${UI}/indexedRepos`, {
      indexed: [...repos.indexed.map((r: { name: string }) => r.name)],
    });
    const now = await api('POST', `${UI}/scanNow`, {
      type: 'artifact',
      data: { repoKey: REPO, path: lead('left-padder', '1.1.0') },
    });
    expect(now.statusCode, now.body).toBe(200);
    const scanned = await scanOf(lead('left-padder', '1.1.0'), (s) => s.status === 'scanned');
    expect(scanned.vulnerabilities).toEqual({ critical: 1 });
  });

  it('issue 16: a new advisory import re-matches stored scans without reading the artifacts again', async () => {
    const db = t.app.granary.database.db;
    const before = await queryRows<{ extracted_at: Date }>(
      db,
      sql`select extracted_at from scan_contents order by sha256`,
    );
    await importOsv([
      osv('GHSA-aaaa-bbbb-cccc', 'left-padder', '0', '1.2.0', '2024-02-01T00:00:00Z', 'CVE-2024-0001'),
      {
        ...osv('GHSA-dddd-eeee-ffff', 'left-padder', '1.2.0', '1.3.0', '2024-03-01T00:00:00Z'),
        severity: [],
        database_specific: { severity: 'LOW' },
      },
    ]);
    const fixedOne = await scanOf(lead('left-padder', '1.2.0'), (s) => s.issues.length > 0);
    expect(fixedOne.issues[0]).toMatchObject({ issueId: 'GHSA-dddd-eeee-ffff', severity: 'Low' });
    const after = await queryRows<{ extracted_at: Date }>(
      db,
      sql`select extracted_at from scan_contents order by sha256`,
    );
    expect(after.map((r) => String(r.extracted_at))).toEqual(before.map((r) => String(r.extracted_at)));
    // The version's facts are written after the content's findings (a transaction per holder): the
    // scan view can show the new findings a moment before the version row has them.
    const deadline = Date.now() + 5000;
    let row = await versionRow('left-padder', '1.2.0');
    while (JSON.stringify(row?.vulnerabilities) !== JSON.stringify({ low: 1 }) && Date.now() < deadline) {
      await new Promise((r) => setTimeout(r, 25));
      row = await versionRow('left-padder', '1.2.0');
    }
    expect(row?.vulnerabilities).toEqual({ low: 1 });
  });

  it('issue 16: security issues (25 a page, most severe first), licences, impact path, component data, Xray summary', async () => {
    const issues = (await api('POST', `${UI}/securityIssues`, {})).json();
    expect(issues.rows.map((r: { issueId: string }) => r.issueId)).toEqual([
      'GHSA-aaaa-bbbb-cccc',
      'GHSA-dddd-eeee-ffff',
    ]);
    expect(issues.rows[0]).toMatchObject({ severity: 'Critical', artifacts: 2 });
    const licenses = (await api('GET', `${UI}/licenses`)).json();
    expect(licenses).toContainEqual(expect.objectContaining({ name: 'MIT', custom: false }));
    expect(
      (await api('POST', `${UI}/customLicense`, { name: 'Acme-Internal', fullName: 'Acme internal licence' }))
        .statusCode,
    ).toBe(200);
    expect((await api('GET', `${UI}/licenses`)).json()).toContainEqual(
      expect.objectContaining({ name: 'Acme-Internal', custom: true, fullName: 'Acme internal licence' }),
    );
    expect((await api('DELETE', `${UI}/customLicense/acme-internal`)).statusCode).toBe(200);
    expect((await api('POST', `${UI}/customLicense`, { name: 'X' }, READER)).statusCode).toBe(403);
    const impact = (
      await api('POST', `${UI}/impactPath`, {
        repoKey: REPO,
        path: lead('left-padder', '1.0.0'),
        issueId: 'GHSA-aaaa-bbbb-cccc',
      })
    ).json();
    expect(impact.paths).toEqual([[`${REPO}/${lead('left-padder', '1.0.0')}`, 'pkg:npm/left-padder@1.0.0']]);
    const general = (
      await api('POST', `${UI}/component/details/general`, { purl: 'pkg:npm/left-padder@1.0.0' })
    ).json();
    expect(general).toMatchObject({ name: 'left-padder', version: '1.0.0', licenses: ['MIT'] });
    const summary = (
      await api('POST', '/xray/api/v1/summary/artifact', {
        paths: [`default/${REPO}/${lead('left-padder', '1.0.0')}`],
      })
    ).json();
    expect(summary.errors).toEqual([]);
    expect(summary.artifacts[0].general).toMatchObject({
      pkg_type: 'npm',
      component_id: 'npm://left-padder:1.0.0',
    });
    expect(summary.artifacts[0].issues[0]).toMatchObject({
      issue_id: 'GHSA-aaaa-bbbb-cccc',
      issue_type: 'security',
      cves: [{ cve: 'CVE-2024-0001', cvss_v3_score: '9.8' }],
      components: [{ component_id: 'npm://left-padder:1.0.0', fixed_versions: ['1.2.0'] }],
    });
  });

  it('issue 16: SBOM of a stored file in CycloneDX (default) and SPDX, with purls; 404 for a file not scanned', async () => {
    const cdx = await api('GET', `/api/sbom/${REPO}/${lead('left-padder', '1.0.0')}`);
    expect(cdx.statusCode, cdx.body).toBe(200);
    expect(cdx.headers['content-type']).toContain('application/vnd.cyclonedx+json');
    const bom = cdx.json();
    expect(bom).toMatchObject({ bomFormat: 'CycloneDX', specVersion: '1.6' });
    expect(bom.metadata.component.purl).toBe('pkg:npm/left-padder@1.0.0');
    expect(JSON.stringify(bom.vulnerabilities)).toContain('GHSA-aaaa-bbbb-cccc');
    const spdx = await api('GET', `/api/sbom/${REPO}/${lead('left-padder', '1.0.0')}?format=spdx`);
    expect(spdx.statusCode).toBe(200);
    expect(spdx.json().spdxVersion).toBe('SPDX-2.3');
    expect(spdx.body).toContain('pkg:npm/left-padder@1.0.0');
    // cached: the same document again
    expect((await api('GET', `/api/sbom/${REPO}/${lead('left-padder', '1.0.0')}?format=spdx`)).body).toBe(
      spdx.body,
    );
    expect((await api('GET', `/api/sbom/${REPO}/left-padder/package.json`)).statusCode).toBe(404);
  });

  it('issue 16: npm audit bulk answers from the advisory database for a local repository', async () => {
    const res = await t.app.inject({
      method: 'POST',
      url: `/repository/${REPO}/-/npm/v1/security/advisories/bulk`,
      headers: { authorization: ADMIN, 'content-type': 'application/json' },
      payload: { 'left-padder': ['1.0.0'], 'other-pkg': ['1.0.0'] },
    });
    expect(res.statusCode).toBe(200);
    const body = res.json();
    expect(Object.keys(body)).toEqual(['left-padder']);
    expect(body['left-padder']).toEqual([
      {
        id: 'GHSA-aaaa-bbbb-cccc',
        url: 'https://example.test/advisories/GHSA-aaaa-bbbb-cccc',
        title: 'left-padder is vulnerable (GHSA-aaaa-bbbb-cccc)',
        severity: 'critical',
        vulnerable_versions: '<1.2.0',
        cwe: [],
        cvss: { score: 9.8, vectorString: CVSS },
      },
    ]);
  });

  it('issue 16: reading a scan needs read permission (outsider 404/403, anonymous 401); scan now needs write', async () => {
    const path = lead('left-padder', '1.0.0');
    expect((await api('GET', `${UI}/scan/${REPO}/${path}`, undefined, READER)).statusCode).toBe(200);
    expect([403, 404]).toContain(
      (await api('GET', `${UI}/scan/${REPO}/${path}`, undefined, OUTSIDER)).statusCode,
    );
    expect([403, 404]).toContain(
      (await api('GET', `/api/sbom/${REPO}/${path}`, undefined, OUTSIDER)).statusCode,
    );
    expect((await t.app.inject({ method: 'GET', url: `${UI}/scan/${REPO}/${path}` })).statusCode).toBe(401);
    expect(
      (await api('POST', `${UI}/scanNow`, { type: 'artifact', data: { repoKey: REPO, path } }, READER))
        .statusCode,
    ).toBe(403);
    expect((await api('POST', `${UI}/securityIssues`, {}, OUTSIDER)).json()).toEqual({ total: 0, rows: [] });
    expect((await api('GET', `${UI}/indexedRepos`, undefined, READER)).statusCode).toBe(403);
  });

  it("issue 16 / issue 24: an image push queues a scan of its manifest, the lead file, and not of its layers (the push's files asked together)", async () => {
    expect(
      (await api('PUT', '/api/repositories/docker-scan', { rclass: 'local', packageType: 'docker' }))
        .statusCode,
    ).toBe(201);
    const image = testImage({ layerSizes: [300, 400] });
    for (const b of [image.config, ...image.layers]) {
      const res = await t.app.inject({
        method: 'POST',
        url: `/v2/docker-scan/web/blobs/uploads/?digest=${b.digest}`,
        headers: { authorization: ADMIN, 'content-type': 'application/octet-stream' },
        payload: b.bytes,
      });
      expect(res.statusCode).toBe(201);
    }
    const pushed = await t.app.inject({
      method: 'PUT',
      url: '/v2/docker-scan/web/manifests/1.0',
      headers: { authorization: ADMIN, 'content-type': image.mediaType },
      payload: image.manifest,
    });
    expect(pushed.statusCode).toBe(201);
    const status = (path: string) =>
      api('POST', `${UI}/scanStatus`, { type: 'artifact', data: { repoKey: 'docker-scan', path } });
    const until = Date.now() + 10_000;
    // The test image's layers are random bytes, not tar archives: the scan ends 'scan failed' —
    // what matters here is that the manifest was queued and scanned at all.
    const done = new Set(['scanned', 'scan failed']);
    while (!done.has((await status('web/1.0/manifest.json')).json().status)) {
      if (Date.now() > until)
        throw new Error(
          `the image manifest was not scanned in 10 s: ${(await status('web/1.0/manifest.json')).body}`,
        );
      await new Promise((r) => setTimeout(r, 200));
    }
    const layer = `web/1.0/sha256__${image.layers[0]!.digest.slice('sha256:'.length)}`;
    expect((await status(layer)).json()).toMatchObject({ status: 'not scanned' });
  });

  it('issue 16: deleting a file drops its scan', async () => {
    const path = lead('left-padder', '1.1.0');
    expect((await api('DELETE', `/repository/${REPO}/${path}`)).statusCode).toBeLessThan(300);
    const until = Date.now() + 10_000;
    for (;;) {
      const rows = await queryRows<{ n: number }>(
        t.app.granary.database.db,
        sql`select count(*)::int as n from scan_artifacts where path = ${path}`,
      );
      if (rows[0]?.n === 0) break;
      if (Date.now() > until) throw new Error('scan row still there');
      await new Promise((r) => setTimeout(r, 200));
    }
  });
});
