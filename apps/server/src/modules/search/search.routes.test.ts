import { createHash } from 'node:crypto';
import { ARCHIVE_ENTRIES_MAX, ARTIFACT_SEARCH_LIMIT } from '@granary/contracts';
import { sql } from 'drizzle-orm';
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import yazl from 'yazl';
import {
  basicAuth,
  createTestApp,
  TEST_ADMIN_PASSWORD,
  type TestApp,
  testEngine,
} from '../../testing/index.ts';

const ADMIN = basicAuth('admin', TEST_ADMIN_PASSWORD);
const READER = basicAuth('reader', 'Reader-pa55word!');

async function zipOf(entries: string[]): Promise<Buffer> {
  const zip = new yazl.ZipFile();
  for (const name of entries) zip.addBuffer(Buffer.from(name), name, { compress: false });
  zip.end();
  const chunks: Buffer[] = [];
  for await (const c of zip.outputStream) chunks.push(c as Buffer);
  return Buffer.concat(chunks);
}

interface Hit {
  name: string;
  path: string;
  repoKey: string;
  relativePath: string;
  entry?: string;
}

describe(`artifact search (${testEngine})`, () => {
  let t: TestApp;
  const deploy = async (repo: string, path: string, body: Buffer | string, query = '') => {
    const res = await t.app.inject({
      method: 'PUT',
      url: `/repository/${repo}/${path}${query}`,
      headers: { authorization: ADMIN },
      payload: body,
    });
    expect(res.statusCode, res.body).toBe(201);
  };
  const ui = async (kind: string, body: Record<string, unknown>, authorization: string | null = ADMIN) =>
    t.app.inject({
      method: 'POST',
      url: `/ui/api/v1/ui/artifactsearch/${kind}`,
      headers: authorization ? { authorization } : {},
      payload: body,
    });
  const hits = async (kind: string, body: Record<string, unknown>, authorization: string | null = ADMIN) => {
    const res = await ui(kind, body, authorization);
    expect(res.statusCode, res.body).toBe(200);
    return (res.json().results as Hit[]).map((h) => h.relativePath).sort();
  };
  const rest = async (url: string, authorization = ADMIN) => {
    const res = await t.app.inject({ url, headers: { authorization } });
    expect(res.statusCode, res.body).toBe(200);
    return res.json();
  };

  beforeAll(async () => {
    t = await createTestApp();
    const admin = { authorization: ADMIN };
    await t.app.inject({
      method: 'PUT',
      url: '/api/repositories/secret-local',
      headers: admin,
      payload: { rclass: 'local', packageType: 'generic' },
    });
    await t.app.inject({
      method: 'PUT',
      url: '/api/security/users/reader',
      headers: admin,
      payload: { password: 'Reader-pa55word!' },
    });
    await t.app.inject({
      method: 'PUT',
      url: '/api/security/permissions/read-generic',
      headers: admin,
      payload: {
        repo: {
          repositories: ['generic-local'],
          include_patterns: ['**'],
          exclude_patterns: ['private/**'],
          actions: { users: { reader: ['read'] } },
        },
      },
    });
    await deploy('generic-local', 'tools/report-1.0.txt', 'report one', ';team=core;stage=prod');
    await deploy('generic-local', 'tools/report-2.0.txt', 'report two', ';team=web;stage=prod');
    await deploy('generic-local', 'private/report-secret.txt', 'hidden report');
    await deploy('secret-local', 'report-3.0.txt', 'secret report', ';team=core');
    await deploy(
      'generic-local',
      'org/acme/core/1.2/core-1.2.jar',
      await zipOf([
        'org/acme/Core.class',
        'org/acme/Core$Inner.class',
        'META-INF/MANIFEST.MF',
        'config/app.xml',
      ]),
    );
    await deploy(
      'generic-local',
      'org/acme/core/1.2/core-1.2-sources.jar',
      await zipOf(['org/acme/Core.java']),
    );
    await deploy('generic-local', 'org/acme/core/1.2/core-1.2.pom', '<project/>');
    await deploy('secret-local', 'lib/secret.jar', await zipOf(['org/secret/Core.class']));
  }, 120_000);
  afterAll(() => t?.close());

  it('quick search: a file name with * and ? wildcards, or a part of a name; only readable repositories and paths', async () => {
    expect(await hits('quick', { query: 'report-?.0.txt' })).toEqual([
      'generic-local/tools/report-1.0.txt',
      'generic-local/tools/report-2.0.txt',
      'secret-local/report-3.0.txt',
    ]);
    expect(await hits('quick', { query: 'REPORT' })).toHaveLength(4);
    expect(await hits('quick', { query: 'report', repos: ['secret-local'] })).toEqual([
      'secret-local/report-3.0.txt',
    ]);
    // the reader has no read on secret-local and none below private/
    expect(await hits('quick', { query: 'report' }, READER)).toEqual([
      'generic-local/tools/report-1.0.txt',
      'generic-local/tools/report-2.0.txt',
    ]);
    const empty = await ui('quick', { query: '**' });
    expect(empty.statusCode).toBe(400);
    expect(empty.json().message ?? empty.body).toMatch(/file name/);
  });

  it('checksum search: sha256, sha1 and md5', async () => {
    const body = Buffer.from('report one');
    for (const algo of ['sha256', 'sha1', 'md5'])
      expect(await hits('checksum', { checksum: createHash(algo).update(body).digest('hex') }), algo).toEqual(
        ['generic-local/tools/report-1.0.txt'],
      );
    const bad = await ui('checksum', { checksum: 'xyz' });
    expect(bad.statusCode).toBe(400);
    const json = await rest(`/api/search/checksum?sha1=${createHash('sha1').update(body).digest('hex')}`);
    expect(json.results).toEqual([
      {
        uri: expect.stringMatching(/\/api\/storage\/generic-local\/tools\/report-1\.0\.txt$/),
        repo: 'generic-local',
        path: 'tools/report-1.0.txt',
      },
    ]);
  });

  it('property search: every named property must match; values may use wildcards', async () => {
    expect(await hits('property', { properties: [{ key: 'team', value: 'core' }] })).toEqual([
      'generic-local/tools/report-1.0.txt',
      'secret-local/report-3.0.txt',
    ]);
    expect(
      await hits('property', {
        properties: [
          { key: 'team', value: 'core' },
          { key: 'stage', value: 'pr*' },
        ],
      }),
    ).toEqual(['generic-local/tools/report-1.0.txt']);
    expect(await hits('property', { properties: [{ key: 'stage' }] })).toHaveLength(2);
    const json = await rest('/api/search/prop?team=core,web&stage=prod');
    expect(json.results.map((r: { path: string }) => r.path).sort()).toEqual([
      'tools/report-1.0.txt',
      'tools/report-2.0.txt',
    ]);
    expect((await rest('/api/search/prop?team=core', READER)).results).toHaveLength(1);
  });

  it('GAVC search: group, artifact, version and classifier on the Maven layout', async () => {
    expect(await hits('gavc', { groupId: 'org.acme', artifactId: 'core', version: '1.2' })).toEqual([
      'generic-local/org/acme/core/1.2/core-1.2-sources.jar',
      'generic-local/org/acme/core/1.2/core-1.2.jar',
      'generic-local/org/acme/core/1.2/core-1.2.pom',
    ]);
    expect(await hits('gavc', { artifactId: 'core', classifier: 'sources' })).toEqual([
      'generic-local/org/acme/core/1.2/core-1.2-sources.jar',
    ]);
    const json = await rest('/api/search/gavc?g=org.acme&a=core&v=1.2&c=sources');
    expect(json.results.map((r: { path: string }) => r.path)).toEqual([
      'org/acme/core/1.2/core-1.2-sources.jar',
    ]);
    expect((await ui('gavc', {})).statusCode).toBe(400);
  });

  it('archive search: class and file names inside stored jars and zips; classes only, without inner classes on request', async () => {
    const found = (await (await ui('archive', { query: 'Core' })).json().results) as Hit[];
    expect(found.map((h) => `${h.relativePath}!${h.entry}`).sort()).toEqual([
      'generic-local/org/acme/core/1.2/core-1.2.jar!org/acme/Core.class',
      'secret-local/lib/secret.jar!org/secret/Core.class',
    ]);
    expect((await (await ui('archive', { query: 'Core*' })).json().results).length).toBe(4);
    const classes = (await (
      await ui('archive', { query: 'Core*', searchClassOnly: true, excludeInnerClasses: true })
    ).json().results) as Hit[];
    expect(classes.map((h) => h.entry).sort()).toEqual(['org/acme/Core.class', 'org/secret/Core.class']);
    expect(
      ((await (await ui('archive', { query: '*.xml' })).json().results) as Hit[]).map((h) => h.entry),
    ).toEqual(['config/app.xml']);
    // readable repositories only
    expect(
      ((await (await ui('archive', { query: 'Core' }, READER)).json().results) as Hit[]).map(
        (h) => h.repoKey,
      ),
    ).toEqual(['generic-local']);
    const json = await rest('/api/search/archive?name=Core.class');
    expect(json.results).toHaveLength(2);
    expect(json.results[0].archiveUris[0]).toMatch(/\/api\/storage\//);
  });

  it('spec 001 §4 archive fallback: the status call says archive entries are indexed on a running server', async () => {
    const res = await t.app.inject({
      url: '/ui/api/v1/ui/artifactsearch/status',
      headers: { authorization: ADMIN },
    });
    expect(res.statusCode, res.body).toBe(200);
    expect(res.json()).toEqual({ archiveIndexing: true });
  });

  it('archive search: entries go with their archive (delete, overwrite) and are bounded per archive', async () => {
    await deploy('generic-local', 'tmp/gone.zip', await zipOf(['gone/Vanish.class']));
    expect(await hits('archive', { query: 'Vanish' })).toEqual(['generic-local/tmp/gone.zip']);
    await deploy('generic-local', 'tmp/gone.zip', await zipOf(['gone/Replaced.class']));
    expect(await hits('archive', { query: 'Vanish' })).toEqual([]);
    expect(await hits('archive', { query: 'Replaced' })).toEqual(['generic-local/tmp/gone.zip']);
    const del = await t.app.inject({
      method: 'DELETE',
      url: '/repository/generic-local/tmp',
      headers: { authorization: ADMIN },
    });
    expect(del.statusCode).toBeLessThan(300);
    expect(await hits('archive', { query: 'Replaced' })).toEqual([]);

    const many = Array.from({ length: ARCHIVE_ENTRIES_MAX + 50 }, (_, i) => `many/E${i}.class`);
    await deploy('generic-local', 'big/many.jar', await zipOf(many));
    const counted = (await t.app.granary.database.db.execute(
      sql`select count(*)::int as n from archive_entries where path = 'big/many.jar'`,
    )) as unknown as { rows: { n: number }[] };
    expect(counted.rows[0]!.n).toBe(ARCHIVE_ENTRIES_MAX);
    const capped = await ui('archive', { query: 'E*.class' });
    expect(capped.json().results).toHaveLength(ARTIFACT_SEARCH_LIMIT);
    expect(capped.json().limitReached).toBe(true);
    // a file that is not a zip is stored all the same, without entries
    await deploy('generic-local', 'broken/not-a.jar', 'not a zip at all');
    expect(await hits('quick', { query: 'not-a.jar' })).toEqual(['generic-local/broken/not-a.jar']);
  });

  it('REST artifact search: a name matches whole file names (wildcards for parts), repos narrows', async () => {
    const exact = await rest('/api/search/artifact?name=report-1.0.txt');
    expect(exact.results.map((r: { path: string }) => r.path)).toEqual(['tools/report-1.0.txt']);
    expect((await rest('/api/search/artifact?name=report')).results).toEqual([]);
    const wild = await rest('/api/search/artifact?name=report-*&repos=secret-local');
    expect(wild.results).toEqual([
      {
        uri: expect.stringMatching(/secret-local\/report-3\.0\.txt$/),
        repo: 'secret-local',
        path: 'report-3.0.txt',
      },
    ]);
    const anon = await t.app.inject({ url: '/api/search/artifact?name=report-*' });
    expect(anon.json().results).toEqual([]);
  });
});
