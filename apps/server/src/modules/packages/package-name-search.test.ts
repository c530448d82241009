import { sql } from 'drizzle-orm';
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import {
  basicAuth,
  createTestApp,
  TEST_ADMIN_PASSWORD,
  type TestApp,
  testEngine,
} from '../../testing/index.ts';
import { SPARSE_NAME_MATCHES } from './packages.queries.ts';
import { indexStoredFile } from './packages.service.ts';

const ADMIN = basicAuth('admin', TEST_ADMIN_PASSWORD);

interface Page {
  edges: { cursor: string; node: { name: string } }[];
  pageInfo: { hasNextPage: boolean; endCursor: string | null };
}

describe(`package name search (${testEngine})`, () => {
  let t: TestApp;

  const list = async (args: Record<string, unknown>): Promise<Page> => {
    const res = await t.app.inject({
      method: 'POST',
      url: '/ui/api/v1/packages',
      headers: { authorization: ADMIN },
      payload: {
        query: `query($n: String, $l: Int, $c: String, $s: String, $st: String) {
          packages(name: $n, limit: $l, endCursor: $c, sort_by: $s, sort_type: $st, package_type: ["npm"]) {
            edges { cursor node { name } } pageInfo { hasNextPage endCursor } } }`,
        variables: args,
      },
    });
    expect(res.statusCode, res.body).toBe(200);
    expect(res.json().errors, res.body).toBeUndefined();
    return res.json().data.packages;
  };
  const names = (page: Page) => page.edges.map((e) => e.node.name);
  /** Every page of a search, `limit` at a time, following the cursors. */
  const allPages = async (args: Record<string, unknown>, limit: number) => {
    const out: string[] = [];
    let cursor: string | null = null;
    for (let i = 0; i < 20; i++) {
      const page: Page = await list({ ...args, l: limit, c: cursor });
      out.push(...names(page));
      if (!page.pageInfo.hasNextPage) return out;
      expect(page.edges).toHaveLength(limit);
      cursor = page.pageInfo.endCursor;
    }
    throw new Error('more than 20 pages');
  };

  beforeAll(async () => {
    t = await createTestApp();
    const res = await t.app.inject({
      method: 'PUT',
      url: '/api/repositories/npm-search',
      headers: { authorization: ADMIN },
      payload: { rclass: 'local', packageType: 'npm' },
    });
    expect(res.statusCode, res.body).toBe(201);
    const db = t.app.granary.database.db;
    const rows = (await db.execute(sql`select id from repositories where key = 'npm-search'`)) as unknown as {
      rows: { id: string }[];
    };
    const repositoryId = rows.rows[0]!.id;
    for (const name of [
      'widget',
      'widget-core',
      '@acme/widget',
      '@acme/widgets-ui',
      'super-widget',
      'mywidget',
      '@widget/tools',
      'gadget',
      'wid',
    ])
      await db.transaction((tx) =>
        indexStoredFile(
          tx,
          {
            repositoryId,
            packageType: 'npm',
            path: `${name}/-/x-1.0.0.tgz`,
            size: 10,
            sha256: 'a'.repeat(64),
          },
          { name, version: '1.0.0', leadFile: true },
        ),
      );
  }, 120_000);
  afterAll(() => t?.close());

  const PREFIX = ['@acme/widget', '@acme/widgets-ui', 'widget', 'widget-core'];
  const ANYWHERE = ['@widget/tools', 'mywidget', 'super-widget'];

  it('issue 22: "widget" finds names that contain it anywhere, scope included (@acme/widget), prefix matches ranked first', async () => {
    const page = await list({ n: 'widget' });
    expect(names(page)).toEqual([...PREFIX, ...ANYWHERE]);
    expect(page.pageInfo.hasNextPage).toBe(false);
    // case does not matter; descending keeps the prefix group first
    expect(names(await list({ n: 'WIDGET' }))).toEqual([...PREFIX, ...ANYWHERE]);
    expect(names(await list({ n: 'widget', st: 'desc' }))).toEqual([
      ...[...PREFIX].reverse(),
      ...[...ANYWHERE].reverse(),
    ]);
  });

  it('issue 22: the ranked search pages with cursors across the prefix/anywhere boundary, no name twice or lost', async () => {
    for (const limit of [1, 2, 3, 4, 6])
      expect(await allPages({ n: 'widget' }, limit), `limit ${limit}`).toEqual([...PREFIX, ...ANYWHERE]);
    // a page that ends exactly at the last prefix match still knows more follow
    const first = await list({ n: 'widget', l: 4 });
    expect(names(first)).toEqual(PREFIX);
    expect(first.pageInfo.hasNextPage).toBe(true);
  });

  it('issue 22: wildcards still work, and other sorts (downloads) list every name that matches anywhere', async () => {
    expect(names(await list({ n: 'w?dget-*' }))).toEqual(['widget-core']);
    expect(names(await list({ n: '*tools' }))).toEqual(['@widget/tools']);
    expect(new Set(names(await list({ n: 'widget', s: 'downloads' })))).toEqual(
      new Set([...PREFIX, ...ANYWHERE]),
    );
  });

  it('issue 22: a term that matches many names (the dense case, past SPARSE_NAME_MATCHES) lists and pages them in name order too', async () => {
    const db = t.app.granary.database.db;
    await db.execute(sql`
      insert into packages (repository_id, package_type, name, latest_version, versions_count)
      select (select id from repositories where key = 'npm-search'), 'npm',
        'q-dense-' || lpad(i::text, 5, '0'), '1.0.0', 1
      from generate_series(1, ${SPARSE_NAME_MATCHES + 1}) i`);
    try {
      const expected = Array.from({ length: 150 }, (_, i) => `q-dense-${String(i + 1).padStart(5, '0')}`);
      const first = await list({ n: 'dense', l: 100 });
      expect(names(first)).toEqual(expected.slice(0, 100));
      expect(first.pageInfo.hasNextPage).toBe(true);
      const second = await list({ n: 'dense', l: 50, c: first.pageInfo.endCursor });
      expect(names(second)).toEqual(expected.slice(100, 150));
      // and the sparse case beside it: one of them, matched anywhere
      expect(names(await list({ n: 'nse-00042' }))).toEqual(['q-dense-00042']);
    } finally {
      await db.execute(sql`delete from packages where name like 'q-dense-%'`);
    }
  });

  it('spec 001 §5: a term under 3 characters (besides * and ?) stays a prefix search', async () => {
    expect(names(await list({ n: 'wi' }))).toEqual(['wid', 'widget', 'widget-core']);
    expect(names(await list({ n: 'ge*' }))).toEqual([]);
    expect(names(await list({ n: 'get' }))).toEqual([...PREFIX, ...ANYWHERE, 'gadget'].sort());
  });
});
