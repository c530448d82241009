import { once } from 'node:events';
import { writeFile } from 'node:fs/promises';
import { createServer, type Server } from 'node:http';
import type { AddressInfo } from 'node:net';
import path from 'node:path';
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import yazl from 'yazl';
import {
  basicAuth,
  createTestApp,
  TEST_ADMIN_PASSWORD,
  type TestApp,
  testEngine,
} from '../../../testing/index.ts';
import { AdvisoryDatabase } from './advisory-database.ts';
import type { OsvRecord } from './osv.ts';

const ADMIN = basicAuth('admin', TEST_ADMIN_PASSWORD);
const USER = basicAuth('plain', 'Plain-pa55word!');
const UI = '/ui/api/v1/xray/ui';

/** An OSV all.zip of these records (and any extra raw entries), as the test writes it. */
async function osvZip(records: OsvRecord[], extra: Record<string, string> = {}): Promise<Buffer> {
  const zip = new yazl.ZipFile();
  for (const r of records) zip.addBuffer(Buffer.from(JSON.stringify(r)), `${r.id}.json`);
  for (const [name, body] of Object.entries(extra)) zip.addBuffer(Buffer.from(body), name);
  zip.end();
  const chunks: Buffer[] = [];
  for await (const c of zip.outputStream as AsyncIterable<Buffer>) chunks.push(c);
  return Buffer.concat(chunks);
}

const npmRecord = (
  id: string,
  name: string,
  fixed: string,
  modified = '2024-01-01T00:00:00Z',
): OsvRecord => ({
  id,
  modified,
  summary: `${name} is vulnerable`,
  aliases: [`CVE-2024-${id.slice(-4)}`],
  severity: [{ type: 'CVSS_V3', score: 'CVSS:3.1/AV:N/AC:L/PR:N/UI:N/S:U/C:H/I:H/A:H' }],
  affected: [
    {
      package: { ecosystem: 'npm', name },
      ranges: [{ type: 'SEMVER', events: [{ introduced: '0' }, { fixed }] }],
    },
  ],
});
const debRecord: OsvRecord = {
  id: 'DSA-0001-1',
  modified: '2024-01-01T00:00:00Z',
  summary: 'openssl',
  affected: [
    {
      package: { ecosystem: 'Debian:12', name: 'openssl' },
      ranges: [{ type: 'ECOSYSTEM', events: [{ introduced: '0' }, { fixed: '3.0.11-1~deb12u2' }] }],
    },
  ],
};
const pypiRecord: OsvRecord = {
  id: 'PYSEC-0001',
  modified: '2024-01-01T00:00:00Z',
  summary: 'django',
  database_specific: { severity: 'MODERATE' },
  affected: [
    {
      package: { ecosystem: 'PyPI', name: 'Django' },
      ranges: [{ type: 'ECOSYSTEM', events: [{ introduced: '4.0' }, { fixed: '4.0.2' }] }],
    },
  ],
};

describe(`advisory database import and status API (issue 16, ${testEngine})`, () => {
  let t: TestApp;
  let db: AdvisoryDatabase;
  let server: Server;
  let served: Buffer = Buffer.alloc(0);
  beforeAll(async () => {
    t = await createTestApp({ outboundAllowlist: '127.0.0.1' });
    db = new AdvisoryDatabase(t.app.granary);
    await t.app.inject({
      method: 'PUT',
      url: '/api/security/users/plain',
      headers: { authorization: ADMIN },
      payload: { password: 'Plain-pa55word!' },
    });
    server = createServer((req, res) => {
      if (req.url === '/osv/all.zip') res.writeHead(200, { 'content-type': 'application/zip' }).end(served);
      else res.writeHead(404).end();
    });
    server.listen(0, '127.0.0.1');
    await once(server, 'listening');
  });
  afterAll(async () => {
    server?.close();
    await t?.close();
  });

  const upload = (zip: Buffer, auth = ADMIN, url = '/api/scanning/advisories/import') =>
    t.app.inject({
      method: 'POST',
      url,
      headers: { authorization: auth, 'content-type': 'application/zip' },
      payload: zip,
    });
  const status = async () =>
    (
      await t.app.inject({
        method: 'GET',
        url: '/api/scanning/advisories/status',
        headers: { authorization: ADMIN },
      })
    ).json();

  it('issue 16: import and status are for administrators only (401 anonymous, 403 a plain user), on both paths', async () => {
    const zip = await osvZip([npmRecord('GHSA-0000-0000-9999', 'nobody', '1.0.0')]);
    for (const url of ['/api/scanning/advisories/import', `${UI}/advisories/import`]) {
      expect(
        (
          await t.app.inject({
            method: 'POST',
            url,
            headers: { 'content-type': 'application/zip' },
            payload: zip,
          })
        ).statusCode,
      ).toBe(401);
      expect((await upload(zip, USER, url)).statusCode).toBe(403);
    }
    for (const url of ['/api/scanning/advisories/status', `${UI}/advisories/status`, `${UI}/customIssue/X`]) {
      expect((await t.app.inject({ method: 'GET', url })).statusCode).toBe(401);
      expect((await t.app.inject({ method: 'GET', url, headers: { authorization: USER } })).statusCode).toBe(
        403,
      );
    }
    expect((await status()).total).toBe(0);
  });

  it('issue 16: an uploaded OSV archive imports new records, counts and skips a bad one; status shows records per ecosystem and the last import', async () => {
    const gen0 = await db.generation();
    const zip = await osvZip([npmRecord('GHSA-0000-0000-0001', 'lodash', '4.17.21'), debRecord, pypiRecord], {
      'BAD-1.json': '{ not json',
      'README.txt': 'not a record',
    });
    const res = await upload(zip);
    expect(res.statusCode, res.body).toBe(200);
    expect(res.json()).toEqual({
      imported: 3,
      updated: 0,
      unchanged: 0,
      skipped: 1,
      ecosystems: { npm: 1, Debian: 1, PyPI: 1 },
    });
    const s = await status();
    expect(s.total).toBe(3);
    expect(s.ecosystems).toEqual({ Debian: 1, PyPI: 1, npm: 1 });
    expect(s.lastImport).toMatchObject({ source: 'upload', imported: 3, updated: 0, by: 'admin' });
    expect(await db.generation()).toBeGreaterThan(gen0);

    const [lodash, fixedLodash, openssl, django, none] = await db.match([
      { ecosystem: 'npm', name: 'lodash', version: '4.17.20' },
      { ecosystem: 'npm', name: 'lodash', version: '4.17.21' },
      { ecosystem: 'Debian:12', name: 'openssl', version: '3.0.11-1~deb12u1' },
      { ecosystem: 'PyPI', name: 'django', version: '4.0.1' },
      { ecosystem: 'npm', name: 'express', version: '1.0.0' },
    ]);
    expect(lodash).toEqual([
      expect.objectContaining({
        advisoryId: 'GHSA-0000-0000-0001',
        severity: 'Critical',
        cvssScore: 9.8,
        fixedVersions: ['4.17.21'],
        aliases: ['CVE-2024-0001'],
      }),
    ]);
    expect(fixedLodash).toEqual([]);
    expect(openssl?.map((f) => f.advisoryId)).toEqual(['DSA-0001-1']);
    expect(django?.[0]).toMatchObject({ advisoryId: 'PYSEC-0001', severity: 'Medium' });
    expect(none).toEqual([]);
    // a batch larger than one lookup round answers every query, in order
    const many = await db.match(
      Array.from({ length: 2_500 }, (_, i) => ({
        ecosystem: 'npm',
        name: i === 2_400 ? 'lodash' : `pkg-${i}`,
        version: '4.17.20',
      })),
    );
    expect(many).toHaveLength(2_500);
    expect(many.flatMap((f, i) => (f.length > 0 ? [i] : []))).toEqual([2_400]);
  });

  it('issue 16: a re-import is incremental: unchanged records are not rewritten, a changed one updates, a withdrawn one no longer matches', async () => {
    const gen = await db.generation();
    let changes = 0;
    db.onChanged(async () => {
      changes++;
    });
    const same = await upload(
      await osvZip([npmRecord('GHSA-0000-0000-0001', 'lodash', '4.17.21'), debRecord, pypiRecord]),
    );
    expect(same.json()).toMatchObject({ imported: 0, updated: 0, unchanged: 3 });
    expect(await db.generation()).toBe(gen);
    expect(changes).toBe(0);

    const res = await db.importArchive(
      await osvZip([
        npmRecord('GHSA-0000-0000-0001', 'lodash', '4.17.22', '2024-03-01T00:00:00Z'),
        { ...debRecord, modified: '2024-03-01T00:00:00Z', withdrawn: '2024-03-01T00:00:00Z' },
        pypiRecord,
        npmRecord('GHSA-0000-0000-0002', 'minimist', '1.2.6'),
      ]),
      { source: 'test', by: null },
    );
    expect(res).toEqual({
      imported: 1,
      updated: 2,
      unchanged: 1,
      skipped: 0,
      ecosystems: { npm: 2, Debian: 1 },
    });
    expect(changes).toBe(1);
    expect(await db.generation()).toBeGreaterThan(gen);
    const [lodash, openssl] = await db.match([
      { ecosystem: 'npm', name: 'lodash', version: '4.17.21' },
      { ecosystem: 'Debian:12', name: 'openssl', version: '3.0.11-1~deb12u1' },
    ]);
    expect(lodash?.map((f) => f.fixedVersions)).toEqual([['4.17.22']]);
    expect(openssl).toEqual([]);
    expect((await status()).total).toBe(3);
  });

  it('issue 16: a bad archive answers 400 and changes nothing', async () => {
    const before = await status();
    const gen = await db.generation();
    const good = await osvZip([npmRecord('GHSA-0000-0000-0003', 'qs', '6.0.0')]);
    for (const bad of [
      Buffer.from('this is not a zip'),
      good.subarray(0, good.length - 30),
      Buffer.alloc(0),
    ]) {
      const res = await upload(bad);
      expect(res.statusCode, res.body).toBe(400);
    }
    // an entry whose bytes were damaged after the directory was written
    const damaged = Buffer.from(good);
    const at = damaged.indexOf(Buffer.from('GHSA-0000-0000-0003.json')) + 30;
    damaged[at] = damaged[at]! ^ 0xff;
    expect((await upload(damaged)).statusCode).toBe(400);
    expect(await status()).toEqual(before);
    expect(await db.generation()).toBe(gen);
  });

  it('issue 16: {path} imports a file on the server; {url} fetches through the outbound client (allow-listed loopback), a refused address is a 400', async () => {
    const file = path.join(t.home, 'tmp-osv-all.zip');
    await writeFile(file, await osvZip([npmRecord('GHSA-0000-0000-0004', 'ws', '8.0.0')]));
    const byPath = await t.app.inject({
      method: 'POST',
      url: `${UI}/advisories/import`,
      headers: { authorization: ADMIN },
      payload: { path: file },
    });
    expect(byPath.statusCode, byPath.body).toBe(200);
    expect(byPath.json()).toMatchObject({ imported: 1, ecosystems: { npm: 1 } });
    expect(
      (
        await t.app.inject({
          method: 'POST',
          url: '/api/scanning/advisories/import',
          headers: { authorization: ADMIN },
          payload: { path: 'relative.zip' },
        })
      ).statusCode,
    ).toBe(400);

    served = await osvZip([npmRecord('GHSA-0000-0000-0005', 'tar', '6.1.9')]);
    const port = (server.address() as AddressInfo).port;
    const byUrl = await t.app.inject({
      method: 'POST',
      url: '/api/scanning/advisories/import',
      headers: { authorization: ADMIN },
      payload: { url: `http://127.0.0.1:${port}/osv/all.zip` },
    });
    expect(byUrl.statusCode, byUrl.body).toBe(200);
    expect(byUrl.json()).toMatchObject({ imported: 1 });
    expect((await status()).lastImport).toMatchObject({
      source: `url http://127.0.0.1:${port}/osv/all.zip`,
      imported: 1,
    });
    const missing = await t.app.inject({
      method: 'POST',
      url: '/api/scanning/advisories/import',
      headers: { authorization: ADMIN },
      payload: { url: `http://127.0.0.1:${port}/nothing.zip` },
    });
    expect(missing.statusCode).toBe(502);
    const refused = await t.app.inject({
      method: 'POST',
      url: '/api/scanning/advisories/import',
      headers: { authorization: ADMIN },
      payload: { url: 'http://10.1.2.3/all.zip' },
    });
    expect(refused.statusCode).toBe(400);
  });

  it('spec 001 §7: custom issue create, read, update and delete; it matches like an OSV advisory', async () => {
    const issue = {
      id: 'CUSTOM-LEFTPAD-1',
      summary: 'left-pad pads wrongly',
      severity: 'High',
      cves: ['CVE-2099-0001'],
      components: [
        {
          ecosystem: 'npm',
          name: 'left-pad',
          vulnerableVersions: ['>=1.0.0 <1.2.3'],
          fixedVersions: ['1.2.3'],
        },
      ],
    };
    const created = await t.app.inject({
      method: 'POST',
      url: `${UI}/customIssue`,
      headers: { authorization: ADMIN },
      payload: issue,
    });
    expect(created.statusCode, created.body).toBe(201);
    expect(
      (
        await t.app.inject({
          method: 'POST',
          url: `${UI}/customIssue`,
          headers: { authorization: ADMIN },
          payload: issue,
        })
      ).statusCode,
    ).toBe(409);
    expect(
      (
        await t.app.inject({
          method: 'POST',
          url: `${UI}/customIssue`,
          headers: { authorization: USER },
          payload: issue,
        })
      ).statusCode,
    ).toBe(403);
    const bad = await t.app.inject({
      method: 'POST',
      url: `${UI}/customIssue`,
      headers: { authorization: ADMIN },
      payload: {
        ...issue,
        id: 'X2',
        components: [{ ecosystem: 'npm', name: 'a', vulnerableVersions: ['~> 1'] }],
      },
    });
    expect(bad.statusCode).toBe(400);
    const got = await t.app.inject({
      method: 'GET',
      url: `${UI}/customIssue/CUSTOM-LEFTPAD-1`,
      headers: { authorization: ADMIN },
    });
    expect(got.json()).toMatchObject({ id: 'CUSTOM-LEFTPAD-1', severity: 'High', cves: ['CVE-2099-0001'] });
    let [hit] = await db.match([{ ecosystem: 'npm', name: 'left-pad', version: '1.2.0' }]);
    expect(hit).toEqual([
      expect.objectContaining({ advisoryId: 'CUSTOM-LEFTPAD-1', severity: 'High', fixedVersions: ['1.2.3'] }),
    ]);

    const put = await t.app.inject({
      method: 'PUT',
      url: `${UI}/customIssue/CUSTOM-LEFTPAD-1`,
      headers: { authorization: ADMIN },
      payload: {
        ...issue,
        severity: 'Low',
        components: [{ ...issue.components[0], vulnerableVersions: ['1.2.0'] }],
      },
    });
    expect(put.statusCode, put.body).toBe(200);
    [hit] = await db.match([{ ecosystem: 'npm', name: 'left-pad', version: '1.1.0' }]);
    expect(hit).toEqual([]);
    [hit] = await db.match([{ ecosystem: 'npm', name: 'left-pad', version: '1.2.0' }]);
    expect(hit?.[0]?.severity).toBe('Low');
    // an OSV import never overwrites an admin's custom issue of the same id
    const clash = await upload(
      await osvZip([
        { ...npmRecord('CUSTOM-LEFTPAD-1', 'left-pad', '9.0.0'), modified: '2030-01-01T00:00:00Z' },
      ]),
    );
    expect(clash.json()).toMatchObject({ imported: 0, updated: 0, skipped: 1 });

    expect(
      (
        await t.app.inject({
          method: 'DELETE',
          url: `${UI}/customIssue/CUSTOM-LEFTPAD-1`,
          headers: { authorization: ADMIN },
        })
      ).statusCode,
    ).toBe(204);
    expect(
      (
        await t.app.inject({
          method: 'GET',
          url: `${UI}/customIssue/CUSTOM-LEFTPAD-1`,
          headers: { authorization: ADMIN },
        })
      ).statusCode,
    ).toBe(404);
    [hit] = await db.match([{ ecosystem: 'npm', name: 'left-pad', version: '1.2.0' }]);
    expect(hit).toEqual([]);
  });
});
