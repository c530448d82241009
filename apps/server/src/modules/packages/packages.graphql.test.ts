import { readFileSync } from 'node:fs';
import path from 'node:path';
import { sql } from 'drizzle-orm';
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { makeTarball, publishDocument } from '../../formats/npm/test-support.ts';
import { basicAuth, createTestApp, TEST_ADMIN_PASSWORD, type TestApp } from '../../testing/index.ts';

const ADMIN = basicAuth('admin', TEST_ADMIN_PASSWORD);
const READER = basicAuth('reader', 'Reader-pa55word!');
const cursorOf = (value: unknown) => Buffer.from(JSON.stringify(value)).toString('base64url');

describe('packages GraphQL errors', () => {
  let t: TestApp;
  const gql = (query: string, variables: Record<string, unknown> = {}, authorization = READER) =>
    t.app.inject({
      method: 'POST',
      url: '/ui/api/v1/packages',
      headers: { authorization },
      payload: { query, variables },
    });

  beforeAll(async () => {
    t = await createTestApp();
    const admin = { authorization: ADMIN };
    let res = await t.app.inject({
      method: 'PUT',
      url: '/api/repositories/npm-local',
      headers: admin,
      payload: { rclass: 'local', packageType: 'npm' },
    });
    expect(res.statusCode, res.body).toBe(201);
    res = await t.app.inject({
      method: 'PUT',
      url: '/api/security/users/reader',
      headers: admin,
      payload: { password: 'Reader-pa55word!' },
    });
    expect(res.statusCode, res.body).toBeLessThan(300);
    res = await t.app.inject({
      method: 'PUT',
      url: '/api/security/permissions/read-npm-local',
      headers: admin,
      payload: {
        repo: {
          repositories: ['npm-local'],
          include_patterns: ['**'],
          actions: { users: { reader: ['read'] } },
        },
      },
    });
    expect(res.statusCode, res.body).toBeLessThan(300);
    for (const name of ['alpha', 'beta']) {
      const manifest = { name, version: '1.0.0', description: name };
      const tgz = await makeTarball(manifest, {});
      res = await t.app.inject({
        method: 'PUT',
        url: `/repository/npm-local/${name}`,
        headers: { authorization: ADMIN, 'content-type': 'application/json' },
        payload: JSON.stringify(publishDocument(manifest, tgz)),
      });
      expect(res.statusCode, res.body).toBeLessThan(300);
    }
  }, 120_000);
  afterAll(() => t?.close());

  const LIST =
    'query($s: String, $c: String) { packages(sort_by: $s, endCursor: $c, limit: 1) { edges { node { name } } } }';
  const noSql = (body: string) => {
    expect(body).not.toMatch(/select|from "|Failed query|params:|timestamptz|syntax/i);
  };

  it('issue 12 §17: a forged cursor that would fail in the database answers a client error with no SQL text', async () => {
    for (const [sortBy, cursor] of [
      ['created', { s: 'not-a-date', l: 'a', n: 'a', t: 'npm' }],
      ['downloads', { s: '1; drop table packages', l: 'a', n: 'a', t: 'npm' }],
      ['name', { l: 'a', n: ['a', 'b'], t: 'npm' }],
      ['name', { l: { a: 1 }, n: 'a', t: 'npm' }],
    ] as const) {
      // twice: the second run of a query text is the compiled (graphql-jit) one
      for (let run = 0; run < 2; run++) {
        const res = await gql(LIST, { s: sortBy, c: cursorOf(cursor) });
        noSql(res.body);
        expect(res.json().errors).toEqual([{ message: 'endCursor is not a cursor of this query' }]);
      }
    }
    const versions = await gql(
      'query($c: String) { versions(packageId: "npm://alpha", endCursor: $c) { edges { node { name } } } }',
      { c: cursorOf({ v: { $gt: '' } }) },
    );
    expect(versions.json().errors).toEqual([{ message: 'endCursor is not a cursor of this query' }]);
  });

  it('issue 12 §17: a cursor of this query still pages (the sort value round-trips)', async () => {
    for (const sortBy of ['name', 'created', 'downloads']) {
      const first = await gql(
        'query($s: String) { packages(sort_by: $s, limit: 1) { edges { node { name } } pageInfo { endCursor } } }',
        { s: sortBy },
      );
      const page1 = first.json().data.packages;
      const second = await gql(LIST, { s: sortBy, c: page1.pageInfo.endCursor });
      expect(second.json().errors, second.body).toBeUndefined();
      const names = [page1.edges[0].node.name, second.json().data.packages.edges[0].node.name].sort();
      expect(names).toEqual(['alpha', 'beta']);
    }
  });

  it('issue 12 §17: sort_by must be one of the choices, not any property of an object', async () => {
    for (const sortBy of ['constructor', '__proto__', 'toString', 'hasOwnProperty']) {
      const res = await gql(LIST, { s: sortBy, c: null });
      noSql(res.body);
      expect(res.json()).toEqual({
        data: null,
        errors: [{ message: 'sort_by must be one of name, created, modified, downloads, versionsCount' }],
      });
      const versions = await gql(
        'query($s: String) { versions(packageId: "npm://alpha", sort_by: $s) { edges { node { name } } } }',
        { s: sortBy },
      );
      expect(versions.json()).toEqual({
        data: null,
        errors: [{ message: 'sort_by must be one of name, created, modified, downloads, size' }],
      });
    }
  });

  it('issue 12 §17: a database failure answers a generic message naming the request id, and is logged', async () => {
    // the packages table gone from under the query: the database's own error, SQL and all
    await t.app.granary.database.db.execute(sql`alter table packages rename to packages_away`);
    try {
      for (let run = 0; run < 2; run++) {
        const res = await gql('{ packages(limit: 5) { edges { node { name } } } }', {}, READER);
        noSql(res.body);
        const errors = res.json().errors as { message: string }[];
        expect(errors).toHaveLength(1);
        const id = String(res.headers['x-request-id']);
        expect(errors[0]!.message).toBe(`Internal server error (request ${id})`);
        // the real error is in the server log, under that request id
        t.app.granary.logging.flush();
        const logged = readFileSync(path.join(t.home, 'logs', 'server.log'), 'utf8')
          .split('\n')
          .filter((line) => line.includes('packages query failed') && line.includes(`"reqId":"${id}"`));
        expect(logged).toHaveLength(1);
        expect(logged[0]).toContain('relation \\"packages\\" does not exist');
      }
    } finally {
      await t.app.granary.database.db.execute(sql`alter table packages_away rename to packages`);
    }
  });

  it('issue 12 §17: a database failure behind a REST call answers 500 with the request id, no SQL text', async () => {
    await t.app.granary.database.db.execute(sql`alter table package_versions rename to versions_away`);
    try {
      const res = await t.app.inject({
        method: 'GET',
        url: '/ui/api/v1/packages/readme?repoKey=npm-local&path=alpha/-/alpha-1.0.0.tgz',
        headers: { authorization: READER },
      });
      expect(res.statusCode).toBe(500);
      noSql(res.body);
      const [error] = res.json().errors;
      expect(error).toMatchObject({ status: 500, code: 'INTERNAL' });
      expect(error.message).toMatch(/^Internal server error \(request [\w-]+\)$/);
    } finally {
      await t.app.granary.database.db.execute(sql`alter table versions_away rename to package_versions`);
    }
  });
});
