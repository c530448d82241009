import {
  graphqlAnswerSchema,
  packageNamePattern,
  packagesConnectionSchema,
  sortDirection,
} from '@granary/contracts';
import { sql } from 'drizzle-orm';
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { z } from 'zod';
import { testImage } from '../../formats/docker/oci-testing.ts';
import { makeTarball, publishDocument } from '../../formats/npm/test-support.ts';
import {
  basicAuth,
  createTestApp,
  TEST_ADMIN_PASSWORD,
  type TestApp,
  testEngine,
} from '../../testing/index.ts';
import { DOWNLOAD_COUNTS_JOB } from './downloads.ts';
import { compareVersionNames } from './packages.read.ts';
import { indexStoredFile } from './packages.service.ts';

const ADMIN = basicAuth('admin', TEST_ADMIN_PASSWORD);
const READER = basicAuth('reader', 'Reader-pa55word!');

interface Page<T> {
  edges: { cursor: string; node: T }[];
  pageInfo: { hasNextPage: boolean; endCursor: string | null };
}
interface Pkg {
  id: string;
  name: string;
  packageType: string;
  versionsCount: number;
  latestVersion: string | null;
  licenses: string[];
  tags: string[];
  description: string;
  stats: { downloads: number };
  repos: { name: string; type: string }[];
  vulnerabilities: Record<string, number | null> | null;
}

const PKG_FIELDS = `id name packageType versionsCount latestVersion licenses tags description created modified
  stats { downloads followers } repos { name type } vulnerabilities { critical high medium low info unknown skipped }
  operationalRisk { riskLevel }`;

describe(`packages index and queries (${testEngine})`, () => {
  let t: TestApp;

  const gql = async (
    query: string,
    variables: Record<string, unknown> = {},
    authorization: string | null = ADMIN,
  ) => {
    const res = await t.app.inject({
      method: 'POST',
      url: '/ui/api/v1/packages',
      headers: authorization ? { authorization } : {},
      payload: { query, variables },
    });
    return res;
  };
  const list = async (
    args: Record<string, unknown>,
    authorization: string | null = ADMIN,
  ): Promise<Page<Pkg>> => {
    const res = await gql(
      `query($a: [String!], $n: String, $s: String, $st: String, $l: Int, $c: String, $t: [String!], $r: [String!],
             $lic: [String!], $sev: [String!], $d: String, $sc: String, $v: String, $ck: String, $b: String, $af: String,
             $pre: Boolean, $id: String) {
        packages(package_type: $a, name: $n, sort_by: $s, sort_type: $st, limit: $l, endCursor: $c, tags: $t, repos: $r,
                 licenses: $lic, severities: $sev, description: $d, scope: $sc, version: $v, checksum: $ck,
                 before: $b, after: $af, ignorePreRelease: $pre, packageId: $id) {
          edges { cursor node { ${PKG_FIELDS} } } pageInfo { hasNextPage endCursor } } }`,
      args,
      authorization,
    );
    expect(res.statusCode, res.body).toBe(200);
    const body = res.json();
    expect(body.errors, res.body).toBeUndefined();
    // every answer has the shape the console reads (packages/contracts)
    graphqlAnswerSchema(z.object({ packages: packagesConnectionSchema })).parse(body);
    return body.data.packages;
  };
  const names = (page: Page<Pkg>) => page.edges.map((e) => e.node.name);

  const publish = async (
    repo: string,
    name: string,
    version: string,
    extra: Record<string, unknown> = {},
    authorization = ADMIN,
  ) => {
    const manifest = { name, version, description: `${name} package`, ...extra };
    const tgz = await makeTarball(manifest, { 'README.md': `# ${name}\n\nThe ${name} readme.` });
    const res = await t.app.inject({
      method: 'PUT',
      url: `/repository/${repo}/${name.replace('/', '%2f')}`,
      headers: { authorization, 'content-type': 'application/json' },
      payload: JSON.stringify(publishDocument(manifest, tgz, { readme: `# ${name}\n` })),
    });
    expect(res.statusCode, res.body).toBeLessThan(300);
    return tgz;
  };
  const repoId = async (key: string) =>
    (
      (await t.app.granary.database.db.execute(
        sql`select id from repositories where key = ${key}`,
      )) as unknown as {
        rows: { id: string }[];
      }
    ).rows[0]!.id;
  /** Index entries of types no format here serves yet (aliases, excluded types), as a format would write them. */
  const seed = async (repoKey: string, packageType: string, name: string, version: string) => {
    const id = await repoId(repoKey);
    await t.app.granary.database.db.transaction(async (tx) =>
      indexStoredFile(
        tx,
        {
          repositoryId: id,
          packageType,
          path: `seed/${packageType}/${name}/${version}`,
          size: 10,
          sha256: 'a'.repeat(64),
        },
        { name, version, leadFile: true },
      ),
    );
  };

  /** How far the app's clock runs ahead of the wall clock: a test moves it instead of sleeping. */
  let ahead = 0;
  beforeAll(async () => {
    t = await createTestApp({}, { now: () => Date.now() + ahead });
    const admin = { authorization: ADMIN };
    for (const [key, body] of [
      ['npm-local', { rclass: 'local', packageType: 'npm' }],
      ['npm-secret', { rclass: 'local', packageType: 'npm' }],
      ['docker-local', { rclass: 'local', packageType: 'docker' }],
    ] as const) {
      const res = await t.app.inject({
        method: 'PUT',
        url: `/api/repositories/${key}`,
        headers: admin,
        payload: body,
      });
      expect(res.statusCode, res.body).toBe(201);
    }
    await t.app.inject({
      method: 'PUT',
      url: '/api/security/users/reader',
      headers: admin,
      payload: { password: 'Reader-pa55word!' },
    });
    const res = await t.app.inject({
      method: 'PUT',
      url: '/api/security/permissions/read-npm-local',
      headers: admin,
      payload: {
        repo: {
          repositories: ['npm-local', 'generic-local'],
          include_patterns: ['**'],
          exclude_patterns: ['hidden-lib/**'],
          actions: { users: { reader: ['read'] } },
        },
      },
    });
    expect(res.statusCode, res.body).toBeLessThan(300);

    await publish('npm-local', 'lodash', '4.17.21', { license: 'MIT', keywords: ['util', 'fp'] });
    await publish('npm-local', 'lodash', '4.9.0', { license: 'MIT', keywords: ['util'] });
    await publish('npm-local', 'lodash', '5.0.0-beta.1', { license: 'MIT' });
    await publish('npm-local', 'lodash-es', '4.17.21', { license: 'MIT', dependencies: { tslib: '^2.0.0' } });
    await publish('npm-local', '@acme/widgets', '1.0.0', { license: 'Apache-2.0', keywords: ['ui'] });
    await publish('npm-local', 'only-pre', '1.0.0-rc.1', { license: 'ISC' });
    await publish('npm-local', 'hidden-lib', '1.0.0', { license: 'MIT' });
    await publish('npm-secret', 'secret-sauce', '1.0.0', { license: 'MIT' });
    await publish('npm-secret', 'lodash', '4.17.21', { license: 'MIT' });
  }, 120_000);
  afterAll(() => t?.close());

  it('spec 001 §3 package fields: a published npm package is listed with id, type, versions count, latest version, licences, tags, repositories and stats', async () => {
    const page = await list({ n: 'lodash', a: ['npm'] });
    const lodash = page.edges.find((e) => e.node.name === 'lodash')!.node;
    expect(lodash).toMatchObject({
      id: 'npm://lodash',
      packageType: 'npm',
      versionsCount: 3,
      latestVersion: '4.17.21',
      licenses: ['MIT'],
      tags: ['fp', 'util'],
      description: 'lodash package',
      stats: { downloads: 0 },
    });
    // one package over both repositories that hold it
    expect(lodash.repos.map((r) => r.name).sort()).toEqual(['npm-local', 'npm-secret']);
    expect(lodash.vulnerabilities).toEqual({
      critical: null,
      high: null,
      medium: null,
      low: null,
      info: null,
      unknown: null,
      skipped: null,
    });
  });

  it('spec 001 §5: a package name filter gets a trailing * unless present; * and ? are wildcards; case does not matter', async () => {
    expect(packageNamePattern('lod')).toBe('lod*');
    expect(packageNamePattern('lod*')).toBe('lod*');
    expect(names(await list({ n: 'lod' }))).toEqual(['lodash', 'lodash-es']);
    expect(names(await list({ n: 'LODASH*' }))).toEqual(['lodash', 'lodash-es']);
    expect(names(await list({ n: 'l?dash-*' }))).toEqual(['lodash-es']);
    expect(names(await list({ n: '*dash-es' }))).toEqual(['lodash-es']);
    expect(names(await list({ n: 'lodash_' }))).toEqual([]); // `_` is literal, not a wildcard
  });

  it('spec 001 §5: sort direction accepts asc, ascend, $asc and uppercase variants; desc spellings descend; anything else gives ASC', async () => {
    for (const s of ['asc', 'ascend', '$asc', 'ASC', 'ASCEND', '$ASC', 'sideways', '', undefined])
      expect(sortDirection(s), String(s)).toBe('ASC');
    for (const s of ['desc', 'descend', '$desc', 'DESC', 'Descend', '$DESC'])
      expect(sortDirection(s), s).toBe('DESC');
    const asc = names(await list({ a: ['npm'], st: '$ASC' }));
    expect(asc).toEqual([...asc].sort());
    expect(names(await list({ a: ['npm'], st: 'descend' }))).toEqual([...asc].reverse());
    expect(names(await list({ a: ['npm'], st: 'nonsense' }))).toEqual(asc);
  });

  it('spec 001 §9: default GraphQL page size 100 with cursor paging (endCursor) in name order, no package twice', async () => {
    for (let i = 0; i < 105; i++)
      await seed('generic-local', 'cargo', `crate-${String(i).padStart(3, '0')}`, '1.0.0');
    const first = await list({ a: ['cargo'] });
    expect(first.edges).toHaveLength(100);
    expect(first.pageInfo.hasNextPage).toBe(true);
    const second = await list({ a: ['cargo'], c: first.pageInfo.endCursor });
    expect(second.edges).toHaveLength(5);
    expect(second.pageInfo.hasNextPage).toBe(false);
    const all = [...names(first), ...names(second)];
    expect(new Set(all).size).toBe(105);
    expect(all).toEqual([...all].sort());
    const small = await list({ a: ['cargo'], l: 10, st: 'desc' });
    expect(names(small)[0]).toBe('crate-104');
    const next = await list({ a: ['cargo'], l: 10, st: 'desc', c: small.pageInfo.endCursor });
    expect(names(next)[0]).toBe('crate-094');
  });

  it('spec 001 §9: type aliases golang→go, gav→maven, deb→debian, rubygems→gems, terraform module→terraform; dockerV1 and terraformBackend excluded', async () => {
    await seed('generic-local', 'go', 'github.com/acme/mod', 'v1.2.3');
    await seed('generic-local', 'maven', 'org.acme:core', '1.0');
    await seed('generic-local', 'debian', 'acme-tools', '1.0-1');
    await seed('generic-local', 'gems', 'acme-gem', '0.1.0');
    await seed('generic-local', 'terraform', 'acme/net/aws', '1.0.0');
    expect(names(await list({ a: ['golang'] }))).toEqual(['github.com/acme/mod']);
    expect(names(await list({ a: ['gav'] }))).toEqual(['org.acme:core']);
    expect(names(await list({ a: ['deb'] }))).toEqual(['acme-tools']);
    expect(names(await list({ a: ['rubygems'] }))).toEqual(['acme-gem']);
    expect(names(await list({ a: ['terraform module'] }))).toEqual(['acme/net/aws']);
    expect(names(await list({ a: ['dockerV1', 'terraformBackend'] }))).toEqual([]);
  });

  it('spec 001 §3 package query: tags, licences, description, scope, version, checksum and repos filter the list', async () => {
    expect(names(await list({ t: ['fp'] }))).toEqual(['lodash']);
    expect(names(await list({ t: ['ui', 'fp'] }))).toEqual(['@acme/widgets', 'lodash']);
    expect(names(await list({ lic: ['Apache-2.0'] }))).toEqual(['@acme/widgets']);
    expect(names(await list({ a: ['npm'], d: 'DASH-ES pack' }))).toEqual(['lodash-es']);
    expect(names(await list({ sc: '@acme' }))).toEqual(['@acme/widgets']);
    expect(names(await list({ sc: 'acme' }))).toEqual(['@acme/widgets']);
    expect(names(await list({ a: ['npm'], v: '4.9.0' }))).toEqual(['lodash']);
    expect(names(await list({ r: ['npm-secret'] }))).toEqual(['lodash', 'secret-sauce']);
    // the checksum of a stored lead file finds its package (sha256, sha1 and md5)
    const rows = (
      (await t.app.granary.database.db.execute(
        sql`select a.sha256, a.sha1, a.md5 from artifacts a join package_versions v on v.lead_path = a.path
            join packages p on p.id = v.package_id where p.name = 'lodash-es'`,
      )) as unknown as { rows: { sha256: string; sha1: string; md5: string }[] }
    ).rows[0]!;
    for (const c of [rows.sha256, rows.sha1, rows.md5.toUpperCase()])
      expect(names(await list({ ck: c }))).toEqual(['lodash-es']);
    expect(names(await list({ id: 'npm://lodash-es' }))).toEqual(['lodash-es']);
  });

  it('repos filter: a virtual repository stands for its members (nested ones too); a member the caller cannot read stays hidden', async () => {
    for (const [key, members] of [
      ['npm-all', ['npm-local', 'npm-secret']],
      ['npm-outer', ['npm-all']],
    ] as const) {
      const res = await t.app.inject({
        method: 'PUT',
        url: `/api/repositories/${key}`,
        headers: { authorization: ADMIN },
        payload: { rclass: 'virtual', packageType: 'npm', repositories: members },
      });
      expect(res.statusCode, res.body).toBe(201);
    }
    // the reader's repository list is cached for a second (REPO_LIST_TTL_MS): new repositories show after it
    ahead += 1_000;
    const all = names(await list({ r: ['npm-secret', 'npm-local'] }));
    expect(names(await list({ r: ['npm-all'] }))).toEqual(all);
    expect(names(await list({ r: ['npm-outer'] }))).toEqual(all);
    expect(all).toContain('secret-sauce');
    // the reader may read npm-local only, and not the virtual repository: naming it shows nothing
    const reader = `Basic ${Buffer.from('reader:Reader-pa55word!').toString('base64')}`;
    expect(names(await list({ r: ['npm-all'] }, reader))).toEqual([]);
  });

  it('spec 001 §3 vulnerabilities: severities filter on counts of at least 1; zero counts are dropped', async () => {
    await t.app.granary.database.db.execute(
      sql`update packages set vulnerabilities = '{"high": 2, "low": 0}'::jsonb where name = 'lodash-es'`,
    );
    const page = await list({ sev: ['high'] });
    expect(names(page)).toEqual(['lodash-es']);
    expect(page.edges[0]!.node.vulnerabilities).toMatchObject({ high: 2, low: null, critical: null });
    expect(names(await list({ sev: ['low'] }))).toEqual([]);
    const bad = await gql('{ packages(severities: ["apocalyptic"]) { edges { cursor } } }');
    expect(bad.json().errors[0].message).toMatch(/Unknown severity 'apocalyptic'/);
  });

  it('spec 001 §5: dates are yyyy-mm-dd for before and after', async () => {
    await t.app.granary.database.db.execute(
      sql`update packages set modified_at = '2020-06-15T12:00:00Z' where name = '@acme/widgets'`,
    );
    expect(names(await list({ a: ['npm'], b: '2021-01-01' }))).toEqual(['@acme/widgets']);
    expect(names(await list({ a: ['npm'], af: '2021-01-01' }))).not.toContain('@acme/widgets');
    const bad = await gql('{ packages(before: "last tuesday") { edges { cursor } } }');
    expect(bad.json().errors[0].message).toBe('before must be a date (yyyy-mm-dd)');
  });

  it('spec 001 §5: only semver release versions are shown when ignorePreRelease is on', async () => {
    expect(names(await list({ a: ['npm'], pre: true }))).not.toContain('only-pre');
    expect(names(await list({ a: ['npm'] }))).toContain('only-pre');
    const res = await gql(
      `{ versions(packageId: "npm://lodash", ignorePreRelease: true) { edges { node { name } } } }`,
    );
    expect(res.json().data.versions.edges.map((e: { node: { name: string } }) => e.node.name)).toEqual([
      '4.9.0',
      '4.17.21',
    ]);
  });

  it('spec 001 §5: version names sort by semantic version (4.9.0 < 4.17.21 < 5.0.0-beta.1 ascending), descending on request, cursor-paged', async () => {
    expect(['1.10.0', '1.2.0', '1.9.0', '2.0.0-rc.1', '2.0.0'].sort(compareVersionNames)).toEqual([
      '1.2.0',
      '1.9.0',
      '1.10.0',
      '2.0.0-rc.1',
      '2.0.0',
    ]);
    const q = `query($st: String, $c: String, $l: Int) { versions(packageId: "npm://lodash", sort_type: $st, endCursor: $c, limit: $l) {
      edges { cursor node { name repos { name type leadFilePath } } } pageInfo { hasNextPage endCursor } } }`;
    const asc = (await gql(q)).json().data.versions;
    expect(asc.edges.map((e: { node: { name: string } }) => e.node.name)).toEqual([
      '4.9.0',
      '4.17.21',
      '5.0.0-beta.1',
    ]);
    // one version in two repositories: both listed with their lead file paths
    expect(asc.edges[1].node.repos).toEqual([
      { name: 'npm-local', type: 'local', leadFilePath: 'lodash/-/lodash-4.17.21.tgz' },
      { name: 'npm-secret', type: 'local', leadFilePath: 'lodash/-/lodash-4.17.21.tgz' },
    ]);
    const desc = (await gql(q, { st: 'DESC', l: 2 })).json().data.versions;
    expect(desc.edges.map((e: { node: { name: string } }) => e.node.name)).toEqual([
      '5.0.0-beta.1',
      '4.17.21',
    ]);
    expect(desc.pageInfo.hasNextPage).toBe(true);
    const rest = (await gql(q, { st: 'DESC', l: 2, c: desc.pageInfo.endCursor })).json().data.versions;
    expect(rest.edges.map((e: { node: { name: string } }) => e.node.name)).toEqual(['4.9.0']);
    expect(rest.pageInfo.hasNextPage).toBe(false);
  });

  it('spec 001 §3 version details: files with checksums and mime types, dependencies, install command with and without version; readme and properties calls', async () => {
    const res = await gql(`{ version(packageId: "npm://lodash-es", name: "4.17.21") {
      name packageId size licenses stats { downloadCount }
      files { name lead size md5 sha1 sha256 mimeType }
      dependencies { name range scope }
      withVersion: installCommand latest: installCommand(withVersion: false)
      repos { name leadFilePath } } }`);
    const v = res.json().data.version;
    expect(v).toMatchObject({
      name: '4.17.21',
      packageId: 'npm://lodash-es',
      licenses: ['MIT'],
      withVersion: 'npm install lodash-es@4.17.21',
      latest: 'npm install lodash-es',
      dependencies: [{ name: 'tslib', range: '^2.0.0', scope: 'runtime' }],
    });
    expect(v.files).toHaveLength(1);
    expect(v.files[0]).toMatchObject({ name: 'lodash-es-4.17.21.tgz', lead: true, size: v.size });
    expect(v.files[0].sha256).toMatch(/^[a-f0-9]{64}$/);
    expect(v.files[0].sha1).toMatch(/^[a-f0-9]{40}$/);
    expect(v.files[0].md5).toMatch(/^[a-f0-9]{32}$/);
    expect(v.files[0].mimeType).toBe('application/gzip');

    const lead = v.repos[0].leadFilePath;
    const readme = await t.app.inject({
      url: `/ui/api/v1/packages/readme?repoKey=npm-local&path=${encodeURIComponent(lead)}`,
      headers: { authorization: ADMIN },
    });
    expect(readme.json().readme).toContain('lodash-es');
    const deps = await t.app.inject({
      url: `/ui/api/v1/packages/dependencies?repoKey=npm-local&path=${encodeURIComponent(lead)}`,
      headers: { authorization: ADMIN },
    });
    expect(deps.json().dependencies[0]).toMatchObject({ name: 'tslib', range: '^2.0.0' });
    const builds = await t.app.inject({
      url: `/ui/api/v1/packages/builds?repoKey=npm-local&path=${encodeURIComponent(lead)}`,
      headers: { authorization: ADMIN },
    });
    expect(builds.json()).toEqual({ builds: [] });
    const props = await t.app.inject({
      url: `/ui/api/v1/packages/properties?repoKey=npm-local&path=${encodeURIComponent(lead)}`,
      headers: { authorization: ADMIN },
    });
    expect(props.statusCode).toBe(200);
    expect(Array.isArray(props.json().properties)).toBe(true);
    const dl = await t.app.inject({
      url: `/ui/api/v1/packages/download?repoKey=npm-local&path=${encodeURIComponent(lead)}`,
      headers: { authorization: ADMIN },
    });
    expect(dl.statusCode).toBe(302);
    expect(dl.headers.location).toBe(`/repository/npm-local/${lead}`);
    const missing = await t.app.inject({
      url: '/ui/api/v1/packages/download?repoKey=npm-local&path=nope/x.tgz',
      headers: { authorization: ADMIN },
    });
    expect(missing.statusCode).toBe(404);
  });

  it('download counts: client downloads of a lead file are counted, batched off the request path, in version and package stats', async () => {
    const before = (await gql(`{ package(packageId: "npm://secret-sauce") { stats { downloads } } }`)).json()
      .data.package.stats.downloads;
    for (let i = 0; i < 3; i++) {
      const res = await t.app.inject({
        url: '/repository/npm-secret/secret-sauce/-/secret-sauce-1.0.0.tgz',
        headers: { authorization: ADMIN },
      });
      expect(res.statusCode).toBe(200);
    }
    await t.app.inject({
      method: 'HEAD',
      url: '/repository/npm-secret/secret-sauce/-/secret-sauce-1.0.0.tgz',
      headers: { authorization: ADMIN },
    });
    await t.app.granary.jobs.runNow(DOWNLOAD_COUNTS_JOB); // the node job that writes the counts
    const after = await gql(`{ package(packageId: "npm://secret-sauce") { stats { downloads } }
      versions(packageId: "npm://secret-sauce") { edges { node { stats { downloadCount } } } } }`);
    expect(after.json().data.package.stats.downloads).toBe(before + 3);
    expect(after.json().data.versions.edges[0].node.stats.downloadCount).toBe(3);
  });

  it('permissions: a user without read on a repository never sees its packages (list, package, versions, version, readme); excluded lead paths are hidden too', async () => {
    const all = names(await list({ a: ['npm'] }, READER));
    expect(all).toContain('lodash');
    expect(all).not.toContain('secret-sauce');
    expect(all).not.toContain('hidden-lib'); // its lead path is excluded from the reader's permission
    const lodash = (await list({ n: 'lodash', a: ['npm'] }, READER)).edges[0]!.node;
    expect(lodash.repos).toEqual([{ name: 'npm-local', type: 'local' }]);
    expect(names(await list({ r: ['npm-secret'] }, READER))).toEqual([]);
    const pkg = await gql(`{ package(packageId: "npm://secret-sauce") { name } }`, {}, READER);
    expect(pkg.json().data.package).toBeNull();
    const versions = await gql(
      `{ versions(packageId: "npm://lodash") { edges { node { name repos { name } } } } }`,
      {},
      READER,
    );
    for (const e of versions.json().data.versions.edges)
      expect(e.node.repos).toEqual([{ name: 'npm-local' }]);
    const version = await gql(
      `{ version(packageId: "npm://secret-sauce", name: "1.0.0") { name } }`,
      {},
      READER,
    );
    expect(version.json().data.version).toBeNull();
    const readme = await t.app.inject({
      url: '/ui/api/v1/packages/readme?repoKey=npm-secret&path=secret-sauce/-/secret-sauce-1.0.0.tgz',
      headers: { authorization: READER },
    });
    expect(readme.statusCode).toBe(404);
    // anonymous callers see nothing while anonymous access is off
    expect(names(await list({}, null))).toEqual([]);
  });

  it('spec 001 §7 version parameters: name (trailing * rule), licences, severities, cve, before/after; files only with includeFiles', async () => {
    const versions = async (args: string) => {
      const res = await gql(
        `{ versions(packageId: "npm://lodash", ${args}) { edges { node { name files { name } } } } }`,
      );
      expect(res.json().errors, res.body).toBeUndefined();
      return res.json().data.versions.edges.map((e: { node: { name: string; files: unknown[] } }) => e.node);
    };
    expect((await versions('name: "4.1"')).map((v: { name: string }) => v.name)).toEqual(['4.17.21']);
    expect((await versions('name: "4.*.21"')).map((v: { name: string }) => v.name)).toEqual(['4.17.21']);
    expect(await versions('licenses: ["ISC"]')).toEqual([]);
    expect((await versions('licenses: ["MIT"]')).length).toBe(3);
    await t.app.granary.database.db.execute(
      sql`update package_versions set vulnerabilities = '{"critical": 1}'::jsonb, cves = '["CVE-2021-23337"]'::jsonb
          where version = '4.9.0'`,
    );
    expect((await versions('severities: ["critical"]')).map((v: { name: string }) => v.name)).toEqual([
      '4.9.0',
    ]);
    expect((await versions('cve: "CVE-2021-23337"')).map((v: { name: string }) => v.name)).toEqual(['4.9.0']);
    expect(await versions('cve: "CVE-1999-0001"')).toEqual([]);
    await t.app.granary.database.db.execute(
      sql`update package_versions set created_at = '2019-01-01T00:00:00Z' where version = '4.9.0'`,
    );
    expect((await versions('before: "2020-01-01"')).map((v: { name: string }) => v.name)).toEqual(['4.9.0']);
    expect((await versions('after: "2020-01-01"')).map((v: { name: string }) => v.name)).not.toContain(
      '4.9.0',
    );
    // files are read only when asked
    expect((await versions('name: "4.17.21"'))[0].files).toEqual([]);
    expect((await versions('name: "4.17.21", includeFiles: true'))[0].files).toEqual([
      { name: 'lodash-4.17.21.tgz' },
    ]);
  });

  it('spec 001 §7 list parameter lowercase_name: the same match as name', async () => {
    const res = await gql('{ packages(lowercase_name: "lodash-") { edges { node { name } } } }');
    expect(res.json().data.packages.edges.map((e: { node: { name: string } }) => e.node.name)).toEqual([
      'lodash-es',
    ]);
  });

  it('anonymous access: when it is on, anonymous callers see the packages of repositories granted to anonymous only', async () => {
    const admin = { authorization: ADMIN };
    const cfg = await t.app.inject({
      method: 'PATCH',
      url: '/api/security/configuration',
      headers: admin,
      payload: { anonymousAccess: true },
    });
    expect(cfg.statusCode, cfg.body).toBeLessThan(300);
    const grant = await t.app.inject({
      method: 'PUT',
      url: '/api/security/permissions/anon-secret',
      headers: admin,
      payload: {
        repo: {
          repositories: ['npm-secret'],
          include_patterns: ['**'],
          exclude_patterns: [],
          actions: { users: { anonymous: ['read'] } },
        },
      },
    });
    expect(grant.statusCode, grant.body).toBeLessThan(300);
    try {
      expect(names(await list({ a: ['npm'] }, null))).toEqual(['lodash', 'secret-sauce']);
    } finally {
      await t.app.inject({ method: 'DELETE', url: '/api/security/permissions/anon-secret', headers: admin });
      await t.app.inject({
        method: 'PATCH',
        url: '/api/security/configuration',
        headers: admin,
        payload: { anonymousAccess: false },
      });
    }
  });

  it('GraphQL errors: a malformed query is a 400 with errors; a bad cursor or limit is an error message', async () => {
    const res = await gql('{ packages(nope: 1) { edges { cursor } } }');
    expect(res.statusCode).toBe(400);
    expect(res.json().errors[0].message).toMatch(/nope/);
    expect((await gql('{ packages(limit: 0) { edges { cursor } } }')).json().errors[0].message).toBe(
      'limit must be a positive integer',
    );
    expect(
      (await gql('{ packages(endCursor: "!!") { edges { cursor } } }')).json().errors[0].message,
    ).toMatch(/endCursor/);
    for (const path of ['package', 'versions']) {
      const r = await t.app.inject({
        method: 'POST',
        url: `/ui/api/v1/${path}`,
        headers: { authorization: ADMIN },
        payload: { query: '{ package(packageId: "npm://lodash") { name latestVersion } }' },
      });
      expect(r.json().data.package).toEqual({ name: 'lodash', latestVersion: '4.17.21' });
    }
  });

  it('sort_by created, modified, downloads and versionsCount page with cursors without repeats', async () => {
    // sort values that differ below the millisecond still page exactly
    await t.app.granary.database.db.execute(
      sql`update packages set created_at = '2022-01-01T00:00:00.000100Z' where name in ('lodash', 'lodash-es')`,
    );
    await t.app.granary.database.db.execute(
      sql`update packages set created_at = '2022-01-01T00:00:00.000200Z' where name = 'only-pre'`,
    );
    for (const sortBy of ['created', 'modified', 'downloads', 'versionsCount'])
      for (const direction of ['asc', 'desc']) {
        const seen: string[] = [];
        let cursor: string | null = null;
        for (let i = 0; i < 30; i++) {
          const page: Page<Pkg> = await list({ a: ['npm'], s: sortBy, st: direction, l: 1, c: cursor });
          seen.push(...names(page));
          if (!page.pageInfo.hasNextPage) break;
          cursor = page.pageInfo.endCursor;
        }
        expect(new Set(seen).size, `${sortBy} ${direction}`).toBe(seen.length);
        expect(seen.length, `${sortBy} ${direction}`).toBe(names(await list({ a: ['npm'] })).length);
      }
    const byVersions = names(await list({ a: ['npm'], s: 'versionsCount', st: 'desc', l: 1 }));
    expect(byVersions).toEqual(['lodash']);
  });

  it('spec 001 §7 POST docker layers: an image tag answers its layers from the stored manifest; other repositories answer empty', async () => {
    const image = testImage({ layerSizes: [300, 500], mediaType: 'docker' });
    for (const b of [image.config, ...image.layers]) {
      const r = await t.app.inject({
        method: 'POST',
        url: `/v2/docker-local/acme/app/blobs/uploads/?digest=${b.digest}`,
        headers: { authorization: ADMIN, 'content-type': 'application/octet-stream' },
        payload: b.bytes,
      });
      expect(r.statusCode, r.body).toBe(201);
    }
    const put = await t.app.inject({
      method: 'PUT',
      url: '/v2/docker-local/acme/app/manifests/1.0',
      headers: { authorization: ADMIN, 'content-type': image.mediaType },
      payload: image.manifest,
    });
    expect(put.statusCode, put.body).toBe(201);
    const layers = await t.app.inject({
      method: 'POST',
      url: '/ui/api/v1/packages/dockerLayers',
      headers: { authorization: ADMIN },
      payload: { repoKey: 'docker-local', path: 'acme/app/1.0/manifest.json', view: 'layers' },
    });
    expect(layers.statusCode, layers.body).toBe(200);
    const body = layers.json();
    expect(body.layers.map((l: { digest: string }) => l.digest)).toEqual(image.layers.map((l) => l.digest));
    expect(body.layers.map((l: { size: number }) => l.size)).toEqual([300, 500]);
    expect(body.config.digest).toBe(image.config.digest);
    const listed = names(await list({ a: ['docker'] }));
    expect(listed).toContain('acme/app');
    const notDocker = await t.app.inject({
      method: 'POST',
      url: '/ui/api/v1/packages/dockerLayers',
      headers: { authorization: ADMIN },
      payload: { repoKey: 'npm-local', path: 'lodash/-/lodash-4.17.21.tgz' },
    });
    expect(notDocker.json()).toEqual({ layers: [], totalSize: 0, config: null });
  });
});
