import { existsSync, readFileSync } from 'node:fs';
import path from 'node:path';
import {
  GIT_VENDOR_NAMES,
  type GitVendorName,
  INTEGRATION_MESSAGES,
  type IntegrationRepositoryScan,
  type RepositoryScan,
  VENDOR_IDS,
} from '@granary/contracts';
import { sql } from 'drizzle-orm';
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import yazl from 'yazl';
import { queryRows } from '../../platform/db/index.ts';
import {
  basicAuth,
  createTestApp,
  TEST_ADMIN_PASSWORD,
  type TestApp,
  testEngine,
} from '../../testing/index.ts';
import { FakeVendor } from './vendor-fakes.ts';

const ADMIN = basicAuth('admin', TEST_ADMIN_PASSWORD);
const USER = basicAuth('plain', 'Plain-pa55word!');
const UI = '/ui/api/v1';

/** An OSV all.zip, as the scanning tests build it. */
async function osvZip(records: object[]): Promise<Buffer> {
  const zip = new yazl.ZipFile();
  for (const r of records) zip.addBuffer(Buffer.from(JSON.stringify(r)), `${(r as { id: string }).id}.json`);
  zip.end();
  const chunks: Buffer[] = [];
  for await (const c of zip.outputStream as AsyncIterable<Buffer>) chunks.push(c);
  return Buffer.concat(chunks);
}

const LOCK = JSON.stringify({
  name: 'shop',
  version: '1.0.0',
  lockfileVersion: 3,
  packages: {
    '': { name: 'shop', version: '1.0.0', dependencies: { lodash: '^4.17.0' } },
    'node_modules/lodash': { version: '4.17.20', license: 'MIT' },
    'node_modules/left-pad': { version: '1.3.0', license: 'WTFPL' },
  },
});
const REQUIREMENTS = 'Django==4.0.1\nrequests>=2.0  # not pinned\n';

const tokens: Record<GitVendorName, string> = {
  github: 'ghp_Integration0Token0Github0001',
  gitlab: 'glpat-Integration0Token0Gitlab02',
  bitbucket_cloud: 'ATBBIntegration0Token0Bitbucket3',
  bitbucket_server: 'BBDC-Integration0Token0Server04',
};
const owner = (v: GitVendorName) => (v === 'bitbucket_server' ? 'SHOP' : 'acme');

describe(`git integrations on each vendor's API (issue 18, spec 001 §3 §6 §7 §8, ${testEngine})`, () => {
  let t: TestApp;
  const fakes = new Map<GitVendorName, FakeVendor>();
  const keys = new Map<GitVendorName, string>();

  beforeAll(async () => {
    // A base URL with a trailing slash: set-me-up answers it normalised (the developer-tool cards use it).
    t = await createTestApp({ outboundAllowlist: '127.0.0.1', baseUrl: 'http://granary.example:8080/' });
    await t.app.inject({
      method: 'PUT',
      url: '/api/security/users/plain',
      headers: { authorization: ADMIN },
      payload: { password: 'Plain-pa55word!' },
    });
    for (const v of GIT_VENDOR_NAMES)
      fakes.set(
        v,
        await new FakeVendor(v, `${v}-bot`, tokens[v], [
          { owner: owner(v), name: 'api', files: { 'README.md': '# api' } },
          {
            owner: owner(v),
            name: 'shop',
            files: { 'package-lock.json': LOCK, 'requirements.txt': REQUIREMENTS },
          },
          { owner: owner(v), name: 'web', files: {} },
        ]).start(),
      );
    const zip = await osvZip([
      {
        id: 'GHSA-35jh-r3h4-6jhm',
        modified: '2024-01-01T00:00:00Z',
        summary: 'Command Injection in lodash',
        severity: [{ type: 'CVSS_V3', score: 'CVSS:3.1/AV:N/AC:L/PR:H/UI:N/S:U/C:H/I:H/A:H' }],
        affected: [
          {
            package: { ecosystem: 'npm', name: 'lodash' },
            ranges: [{ type: 'SEMVER', events: [{ introduced: '0' }, { fixed: '4.17.21' }] }],
          },
        ],
      },
    ]);
    const imported = await t.app.inject({
      method: 'POST',
      url: '/api/scanning/advisories/import',
      headers: { authorization: ADMIN, 'content-type': 'application/zip' },
      payload: zip,
    });
    expect(imported.statusCode, imported.body).toBe(200);
  });
  afterAll(async () => {
    for (const f of fakes.values()) await f.stop();
    await t?.close();
  });

  const api = (
    method: 'GET' | 'POST' | 'PUT' | 'DELETE',
    url: string,
    payload?: unknown,
    auth: string | null = ADMIN,
  ) =>
    t.app.inject({
      method,
      url: `${UI}/${url}`,
      headers: auth ? { authorization: auth } : {},
      ...(payload === undefined ? {} : { payload: payload as object }),
    });
  const form = (v: GitVendorName, over: Record<string, unknown> = {}) => ({
    userName: `${v}-bot`,
    integrationName: `${v}-main`,
    token: tokens[v],
    url: fakes.get(v)!.url,
    vendorName: VENDOR_IDS[v],
    integrationType: 1,
    ...over,
  });

  async function waitForScan(key: string, repo: string): Promise<RepositoryScan> {
    const until = Date.now() + 20_000;
    for (;;) {
      const scans = (await api('GET', `integration/${key}/scans`)).json() as RepositoryScan[];
      const scan = scans.find((s) => s.repository === repo);
      if (scan && (scan.status === 'done' || scan.status === 'failed')) return scan;
      if (Date.now() > until) throw new Error(`scan of ${repo} did not finish: ${JSON.stringify(scans)}`);
      await new Promise((r) => setTimeout(r, 100));
    }
  }

  const expected: Record<
    GitVendorName,
    { login: string; scopes: string[]; comment: boolean; expires: boolean }
  > = {
    github: { login: 'github-bot', scopes: ['repo', 'read:org'], comment: true, expires: true },
    gitlab: { login: 'gitlab-bot', scopes: ['read_api', 'read_repository'], comment: false, expires: true },
    bitbucket_cloud: {
      login: 'bitbucket_cloud-bot',
      scopes: ['repository', 'pullrequest:write', 'account'],
      comment: true,
      expires: false,
    },
    bitbucket_server: { login: 'bitbucket_server-bot', scopes: [], comment: false, expires: false },
  };

  for (const v of GIT_VENDOR_NAMES)
    it(`issue 18 / spec 001 §7 (${v}): create → test connection (identity, scopes) → select xray → two pages of repositories → a scan of package-lock.json lists the lodash advisory`, async () => {
      const created = await api('POST', 'integrations', form(v));
      expect(created.statusCode, created.body).toBe(200);
      const key = created.json() as string;
      expect(typeof key).toBe('string');
      keys.set(v, key);

      const tested = await api('POST', 'integrations/testConnection', form(v));
      expect(tested.statusCode, tested.body).toBe(200);
      const result = tested.json();
      expect(result.identity.login).toBe(expected[v].login);
      expect(result.scopes).toEqual(expected[v].scopes);
      expect(result.capabilities.readRepositories).toBe(true);
      expect(result.capabilities.comment).toBe(expected[v].comment);
      expect(result.expiresAt !== null).toBe(expected[v].expires);

      // Select the xray service; an empty token keeps the stored one (answers show only its tail).
      const updated = await api('PUT', `integration/${key}`, form(v, { token: '', products: ['xray'] }));
      expect(updated.statusCode, updated.body).toBe(200);
      expect(updated.json()).toMatchObject({ key, products: ['xray'], tokenLast4: tokens[v].slice(-4) });
      expect(updated.body).not.toContain(tokens[v]);

      const listed = await api('GET', `integration/${key}/repositories`);
      expect(listed.statusCode, listed.body).toBe(200);
      expect(listed.json().map((r: { fullName: string }) => r.fullName)).toEqual(
        ['api', 'shop', 'web'].map((n) => `${owner(v)}/${n}`),
      );
      // Three repositories at two a page: the second page was followed.
      const pages = fakes
        .get(v)!
        .requests.filter((r) => /\/(user\/repos|projects\?|repositories\?|repos\?)/.test(r.url));
      expect(pages.length).toBeGreaterThanOrEqual(2);

      const chosen = await api('PUT', `integration/${key}/repositories`, {
        repositories: [`${owner(v)}/shop`],
      });
      expect(chosen.statusCode, chosen.body).toBe(200);
      expect(
        chosen
          .json()
          .filter((r: { selected: boolean }) => r.selected)
          .map((r: { fullName: string }) => r.fullName),
      ).toEqual([`${owner(v)}/shop`]);
      const scan = await waitForScan(key, `${owner(v)}/shop`);
      expect(scan.status, scan.error ?? '').toBe('done');
      expect(scan.manifests).toEqual(['package-lock.json', 'requirements.txt']);
      expect(scan.findings).toContainEqual(
        expect.objectContaining({
          manifest: 'package-lock.json',
          package: 'lodash',
          version: '4.17.20',
          advisoryId: 'GHSA-35jh-r3h4-6jhm',
          fixedVersions: ['4.17.21'],
        }),
      );
      expect(scan.licenses).toContainEqual({ package: 'lodash', version: '4.17.20', license: 'MIT' });

      // The connected lists: xray entries carry integration_id.
      const vcs = (await api('GET', 'xray/ui/vcs_integrations')).json();
      expect(vcs).toContainEqual({ key, vendorName: v, products: ['xray'], integration_id: key });
    });

  it('issue 18 / spec 001 §3: GET integrations and integrations/git answer the vendor items with their instances', async () => {
    const groups = (await api('GET', 'integrations')).json();
    const git = groups.find((g: { type: string }) => g.type === 'git');
    expect(git.available).toBe(true);
    const github = git.items.find((i: { name: string }) => i.name === 'github');
    expect(github).toMatchObject({ id: 1, displayName: 'GitHub', configured: true, products: ['xray'] });
    expect(github.configuredServices).toEqual([{ serviceName: 'xray', connections: 1, connected: true }]);
    const items = (await api('GET', 'integrations/git')).json();
    expect(items.map((i: { id: number }) => i.id)).toEqual([1, 2, 3, 4]);
    expect((await api('GET', 'integration/getIntegrations')).json()).toHaveLength(4);
  });

  it('issue 18 (scans shown in Security & Compliance): GET integrations/scans lists the latest scan of every selected repository of every integration, with its findings and licences', async () => {
    const res = await api('GET', 'integrations/scans');
    expect(res.statusCode, res.body).toBe(200);
    const scans = res.json() as IntegrationRepositoryScan[];
    expect(scans).toHaveLength(GIT_VENDOR_NAMES.length);
    for (const v of GIT_VENDOR_NAMES) {
      const scan = scans.find((s) => s.integrationKey === keys.get(v));
      expect(scan, v).toMatchObject({
        integrationName: `${v}-main`,
        vendorName: v,
        repository: `${owner(v)}/shop`,
        status: 'done',
      });
      expect(Number.isNaN(Date.parse(scan!.scannedAt ?? ''))).toBe(false);
      expect(scan!.findings).toContainEqual(
        expect.objectContaining({
          advisoryId: 'GHSA-35jh-r3h4-6jhm',
          severity: expect.any(String),
          package: 'lodash',
          version: '4.17.20',
          fixedVersions: ['4.17.21'],
          manifest: 'package-lock.json',
        }),
      );
      expect(scan!.licenses).toContainEqual({ package: 'lodash', version: '4.17.20', license: 'MIT' });
    }
    // Admins only, checked on the server.
    expect((await api('GET', 'integrations/scans', undefined, USER)).statusCode).toBe(403);
    expect((await api('GET', 'integrations/scans', undefined, null)).statusCode).toBe(401);
  });

  it('issue 18 / spec 001 §7: the developer-tool cards read set-me-up with the trailing slash normalised', async () => {
    const res = await t.app.inject({
      method: 'GET',
      url: `${UI}/ui/setMeUp`,
      headers: { authorization: USER },
    });
    expect(res.statusCode).toBe(200);
    expect(res.json().baseUrl).toBe('http://granary.example:8080');
  });

  it('issue 18 / spec 001 §8: bad credentials answer "Connection test failed, please check your credentials"', async () => {
    for (const v of GIT_VENDOR_NAMES) {
      const res = await api('POST', 'integrations/testConnection', form(v, { token: 'wrong-token-0000' }));
      expect(res.statusCode, res.body).toBe(400);
      expect(res.body).toContain(INTEGRATION_MESSAGES.testFailed);
      expect(res.body).not.toContain('wrong-token-0000');
    }
    // §5 messages.
    const bad = await api('POST', 'integrations', form('github', { userName: '', integrationName: ' ' }));
    expect(bad.statusCode).toBe(400);
    expect(bad.body).toContain(INTEGRATION_MESSAGES.userNameRequired);
    expect(bad.body).toContain(INTEGRATION_MESSAGES.nameRequired);
    const noToken = await api(
      'POST',
      'integrations',
      form('github', { integrationName: 'other', token: '' }),
    );
    expect(noToken.body).toContain(INTEGRATION_MESSAGES.tokenRequired);
  });

  it('issue 18 (secrets at rest): tokens are write-only, the database holds none in plaintext and no log names one', async () => {
    const everything = [
      (await api('GET', 'integrations')).body,
      (await api('GET', 'integrations/git')).body,
      (await api('GET', 'integration/getIntegrations')).body,
    ].join('\n');
    const rows = await queryRows<Record<string, unknown>>(
      t.app.granary.database.db,
      sql`select * from git_integrations`,
    );
    expect(rows).toHaveLength(4);
    for (const v of GIT_VENDOR_NAMES) {
      expect(everything).not.toContain(tokens[v]);
      expect(everything).toContain(tokens[v].slice(-4));
      expect(JSON.stringify(rows)).not.toContain(tokens[v]);
      expect(JSON.stringify(rows)).not.toContain(tokens[v].slice(0, 12));
    }
    for (const r of rows) expect(t.app.granary.secrets.isSealed(String(r.token_sealed))).toBe(true);
    // ...and no log file names one.
    t.app.granary.logging.flush();
    const logs = ['server.log', 'request.log', 'security.log']
      .map((f) => path.join(t.app.granary.logging.dir, f))
      .filter((f) => existsSync(f))
      .map((f) => readFileSync(f, 'utf8'))
      .join('\n');
    for (const v of GIT_VENDOR_NAMES) expect(logs).not.toContain(tokens[v]);
  });

  it('issue 18 / spec 001 §6: git integrations are for administrators only (401 anonymous, 403 a plain user) and off with the feature flag', async () => {
    const key = keys.get('github')!;
    const calls: [Parameters<typeof api>[0], string, unknown?][] = [
      ['GET', 'integrations/git'],
      ['POST', 'integrations/testConnection', form('github')],
      ['POST', 'integrations', form('github', { integrationName: 'intruder' })],
      ['PUT', `integration/${key}`, form('github')],
      ['DELETE', `integration/${key}`],
      ['GET', 'xray/ui/vcs_integrations'],
      ['GET', 'integration/getIntegrations'],
      ['GET', `integration/${key}/repositories`],
      ['GET', `integration/${key}/scans`],
      ['GET', 'integrations/scans'],
    ];
    for (const [method, url, body] of calls) {
      expect((await api(method, url, body, null)).statusCode, url).toBe(401);
      expect((await api(method, url, body, USER)).statusCode, url).toBe(403);
    }
    // A plain user sees the groups, with git unavailable and empty.
    const groups = (await api('GET', 'integrations', undefined, USER)).json();
    expect(groups.find((g: { type: string }) => g.type === 'git')).toMatchObject({
      available: false,
      items: [],
    });

    const off = await t.app.inject({
      method: 'PATCH',
      url: '/ui/api/v1/system/featuresConfig',
      headers: { authorization: ADMIN },
      payload: { gitRepoScanning: false },
    });
    expect(off.statusCode, off.body).toBe(200);
    expect((await api('GET', 'integrations/git')).statusCode).toBe(403);
    expect((await api('GET', 'integrations')).json()[0]).toMatchObject({ type: 'git', available: false });
    await t.app.inject({
      method: 'PATCH',
      url: '/ui/api/v1/system/featuresConfig',
      headers: { authorization: ADMIN },
      payload: { gitRepoScanning: true },
    });

    const gone = await api('DELETE', `integration/${key}`);
    expect(gone.statusCode).toBe(204);
    expect((await api('GET', `integration/${key}/scans`)).statusCode).toBe(404);
  });
});
