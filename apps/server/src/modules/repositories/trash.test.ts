import { createHash } from 'node:crypto';
import { sql } from 'drizzle-orm';
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { parseMetadata } from '../../formats/maven/index-builder.ts';
import { makeTarball, publishDocument } from '../../formats/npm/test-support.ts';
import { makeWheel, uploadForm } from '../../formats/pypi/test-dists.ts';
import { queryRows } from '../../platform/db/index.ts';
import { listEvents } from '../../platform/events/index.ts';
import { basicAuth, createTestApp, TEST_ADMIN_PASSWORD, type TestApp } from '../../testing/index.ts';

/**
 * Issue 21 "Trash can" (spec 001 §3: Delete Permanently, Empty Trash Can, Search Trash Can, Restore):
 * deletes from the REST API and the clients' own unpublish go to the repository's trash and vanish from
 * every client view at once; a restore gives the identical bytes back and the clients see the version again.
 */

const ADMIN = basicAuth('admin', TEST_ADMIN_PASSWORD);
const READER = basicAuth('trash-reader', 'Reader-Pa55word!');
const DAY = 24 * 3600 * 1000;
const sha256 = (bytes: Buffer | string) => createHash('sha256').update(bytes).digest('hex');

describe('issue 21: the trash can', () => {
  let t: TestApp;
  let clock = Date.now();
  const request = (
    method: 'GET' | 'PUT' | 'DELETE' | 'POST',
    url: string,
    opts: { payload?: string | Buffer | object; auth?: string; headers?: Record<string, string> } = {},
  ) =>
    t.app.inject({
      method,
      url,
      headers: { authorization: opts.auth ?? ADMIN, ...opts.headers },
      payload: opts.payload as string,
    });
  const ok = async (res: ReturnType<typeof request>, status = 200) => {
    const r = await res;
    expect(r.statusCode, r.body).toBe(status);
    return r;
  };
  // biome-ignore lint/suspicious/noExplicitAny: JSON answers read in assertions
  const json = async (res: ReturnType<typeof request>): Promise<any> => (await ok(res)).json();
  const search = async (
    q: string,
    auth = ADMIN,
  ): Promise<{
    results: { repoKey: string; path: string; deletedBy: string; canRestore: boolean; canDelete: boolean }[];
    canEmpty: boolean;
  }> => json(request('GET', `/ui/api/v1/ui/trash/search?q=${encodeURIComponent(q)}`, { auth }));
  const refCount = async (sha: string) =>
    Number(
      (
        await queryRows<{ ref_count: number }>(
          t.app.repositories.db,
          sql`select ref_count from blobs where sha256 = ${sha}`,
        )
      )[0]?.ref_count ?? 0,
    );

  beforeAll(async () => {
    t = await createTestApp({}, { now: () => clock });
    for (const [key, packageType] of [
      ['trash-npm', 'npm'],
      ['trash-pypi', 'pypi'],
      ['trash-mvn', 'maven'],
      ['trash-gen', 'generic'],
    ])
      await ok(
        request('PUT', `/api/repositories/${key}`, { payload: { rclass: 'local', packageType } }),
        201,
      );
    await ok(
      request('PUT', '/api/repositories/no-trash', {
        payload: { rclass: 'local', packageType: 'generic', trashcanEnabled: false },
      }),
      201,
    );
    await ok(
      request('PUT', '/api/security/users/trash-reader', {
        payload: { email: 'r@example.com', password: 'Reader-Pa55word!' },
      }),
      201,
    );
    const perm = await request('PUT', '/api/security/permissions/trash-reader', {
      payload: {
        name: 'trash-reader',
        repo: {
          repositories: ['trash-gen'],
          include_patterns: ['**'],
          exclude_patterns: [],
          actions: { users: { 'trash-reader': ['read'] } },
        },
      },
    });
    expect(perm.statusCode, perm.body).toBeLessThan(300);
  }, 120_000);
  afterAll(async () => t?.close());

  it('issue 21 / spec 001 §3 Restore: an npm unpublish goes to the trash; restored, the packument lists the version again with the identical tarball', async () => {
    const tarballs: Record<string, Buffer> = {};
    for (const version of ['1.0.0', '2.0.0']) {
      const manifest = { name: 'bin-me', version };
      tarballs[version] = await makeTarball(manifest);
      await ok(
        request('PUT', '/repository/trash-npm/bin-me', {
          payload: JSON.stringify(publishDocument(manifest, tarballs[version]!)),
          headers: { 'content-type': 'application/json' },
        }),
        201,
      );
    }
    const versions = async () =>
      Object.keys((await json(request('GET', '/repository/trash-npm/bin-me'))).versions).sort();
    // The last step of `npm unpublish bin-me@1.0.0`.
    await ok(request('DELETE', '/repository/trash-npm/bin-me/-/bin-me-1.0.0.tgz/-rev/1'));
    expect(await versions()).toEqual(['2.0.0']);
    const tgz = '/repository/trash-npm/bin-me/-/bin-me-1.0.0.tgz';
    expect((await request('GET', tgz)).statusCode).toBe(404);
    const found = await search('bin-me-1.0.0');
    expect(found.results.map((r) => [r.repoKey, r.path, r.deletedBy])).toEqual([
      ['trash-npm', 'bin-me/-/bin-me-1.0.0.tgz', 'admin'],
    ]);
    const restored = await ok(request('POST', '/api/trash/restore/trash-npm/bin-me/-/bin-me-1.0.0.tgz'));
    expect(restored.body).toContain('Successfully restored');
    expect(await versions()).toEqual(['1.0.0', '2.0.0']);
    const back = await ok(request('GET', tgz));
    expect(sha256(back.rawPayload)).toBe(sha256(tarballs['1.0.0']!));
    expect((await search('bin-me-1.0.0')).results).toEqual([]);
  });

  it('issue 21 Restore: a PyPI version folder deleted leaves the simple page; restored, the page lists the wheel again, same bytes', async () => {
    const wheel = await makeWheel({ name: 'trashed-dist', version: '1.0.0' });
    const form = await uploadForm(wheel, { name: 'trashed-dist', version: '1.0.0', filetype: 'bdist_wheel' });
    await ok(
      request('POST', '/repository/trash-pypi/', {
        payload: form.body,
        headers: { 'content-type': form.contentType },
      }),
    );
    const page = async () => {
      const res = await request('GET', '/repository/trash-pypi/simple/trashed-dist/', {
        headers: { accept: 'application/vnd.pypi.simple.v1+json' },
      });
      if (res.statusCode === 404) return null;
      expect(res.statusCode, res.body).toBe(200);
      return (res.json() as { files: { filename: string }[] }).files.map((f) => f.filename);
    };
    expect(await page()).toEqual([wheel.filename]);
    await ok(request('DELETE', '/repository/trash-pypi/packages/trashed-dist/1.0.0/'), 204);
    expect(await page()).toBeNull();
    await ok(request('POST', '/api/trash/restore/trash-pypi/packages/trashed-dist/1.0.0'));
    expect(await page()).toEqual([wheel.filename]);
    const file = await request('GET', `/repository/trash-pypi/packages/trashed-dist/1.0.0/${wheel.filename}`);
    expect(file.statusCode).toBe(200);
    expect(sha256(file.rawPayload)).toBe(sha256(wheel.bytes));
  });

  it('issue 21 Restore: a Maven version deleted leaves maven-metadata.xml; restored, the metadata lists it again', async () => {
    const lib = 'org/granary/trash/lib';
    for (const v of ['1.0', '2.0']) {
      await ok(
        request('PUT', `/repository/trash-mvn/${lib}/${v}/lib-${v}.jar`, { payload: `jar ${v}` }),
        201,
      );
      await ok(
        request('PUT', `/repository/trash-mvn/${lib}/${v}/lib-${v}.pom`, {
          payload: `<project><modelVersion>4.0.0</modelVersion><groupId>org.granary.trash</groupId><artifactId>lib</artifactId><version>${v}</version></project>`,
        }),
        201,
      );
    }
    const versions = async () =>
      parseMetadata((await ok(request('GET', `/repository/trash-mvn/${lib}/maven-metadata.xml`))).rawPayload)
        .versions;
    expect(await versions()).toEqual(['1.0', '2.0']);
    await ok(request('DELETE', `/repository/trash-mvn/${lib}/1.0`), 204);
    expect(await versions()).toEqual(['2.0']);
    await ok(request('POST', `/api/trash/restore/trash-mvn/${lib}/1.0`));
    expect(await versions()).toEqual(['1.0', '2.0']);
    expect((await request('GET', `/repository/trash-mvn/${lib}/1.0/lib-1.0.jar`)).body).toBe('jar 1.0');
  });

  it('issue 21 Restore: refused with 409 and a clear message when another file is at the path now; ?to= restores elsewhere', async () => {
    const url = '/repository/trash-gen/docs/report.txt';
    await ok(request('PUT', url, { payload: 'first' }), 201);
    await ok(request('DELETE', url), 204);
    await ok(request('PUT', url, { payload: 'second' }), 201);
    const refused = await request('POST', '/api/trash/restore/trash-gen/docs/report.txt');
    expect(refused.statusCode).toBe(409);
    expect(refused.body).toContain("another file is at 'trash-gen/docs/report.txt' now");
    expect((await request('GET', url)).body).toBe('second');
    await ok(
      request('POST', '/api/trash/restore/trash-gen/docs/report.txt?to=trash-gen/docs/report-old.txt'),
    );
    expect((await request('GET', '/repository/trash-gen/docs/report-old.txt')).body).toBe('first');
  });

  it('issue 21: a restore from the trash announces artifact.deployed (a re-deploy, by the restorer) and keeps the properties and creation record', async () => {
    const url = '/repository/trash-gen/events/e.txt';
    await ok(request('PUT', url, { payload: 'restored bytes' }), 201);
    await ok(request('PUT', '/api/storage/trash-gen/events/e.txt?properties=qa=passed'), 204);
    const before = await json(request('GET', '/api/storage/trash-gen/events/e.txt'));
    await ok(request('DELETE', url), 204);
    const db = t.app.granary.database.db;
    const last = Math.max(0, ...(await listEvents(db)).map((e) => e.id));
    await ok(request('POST', '/api/trash/restore/trash-gen/events/e.txt'));
    const events = (await listEvents(db)).filter((e) => e.id > last);
    expect(events.map((e) => [e.type, e.payload])).toEqual([
      [
        'artifact.deployed',
        {
          repo_key: 'trash-gen',
          path: 'events/e.txt',
          name: 'e.txt',
          sha256: sha256('restored bytes'),
          size: 14,
          by: 'admin',
        },
      ],
    ]);
    const after = await json(request('GET', '/api/storage/trash-gen/events/e.txt?properties'));
    expect(after.properties).toEqual({ qa: ['passed'] });
    expect((await json(request('GET', '/api/storage/trash-gen/events/e.txt'))).created).toBe(before.created);
  });

  it('issue 21: a repository with its trash off deletes for real; the setting shows in its JSON', async () => {
    expect(await json(request('GET', '/api/repositories/no-trash'))).toMatchObject({
      trashcanEnabled: false,
    });
    expect(await json(request('GET', '/api/repositories/trash-gen'))).toMatchObject({
      trashcanEnabled: true,
    });
    await ok(request('PUT', '/repository/no-trash/gone.txt', { payload: 'gone for good' }), 201);
    await ok(request('DELETE', '/repository/no-trash/gone.txt'), 204);
    expect((await search('gone.txt')).results).toEqual([]);
    expect((await request('POST', '/api/trash/restore/no-trash/gone.txt')).statusCode).toBe(404);
    expect(await refCount(sha256('gone for good'))).toBe(0);
  });

  it('issue 21 / spec 001 §3: a reader sees the entry but cannot restore, delete it permanently or empty the trash', async () => {
    await ok(request('PUT', '/repository/trash-gen/locked/a.txt', { payload: 'kept' }), 201);
    await ok(request('DELETE', '/repository/trash-gen/locked/a.txt'), 204);
    const seen = await search('locked', READER);
    expect(seen.results.map((r) => [r.path, r.canRestore, r.canDelete])).toEqual([
      ['locked/a.txt', false, false],
    ]);
    expect(seen.canEmpty).toBe(false);
    expect(
      (await request('POST', '/api/trash/restore/trash-gen/locked/a.txt', { auth: READER })).statusCode,
    ).toBe(403);
    expect(
      (await request('DELETE', '/api/trash/clean/trash-gen/locked/a.txt', { auth: READER })).statusCode,
    ).toBe(403);
    expect((await request('POST', '/api/trash/empty', { auth: READER })).statusCode).toBe(403);
    expect((await search('locked')).results).toHaveLength(1);
  });

  it('issue 21: the trash is listed as auto-trashcan in the storage API; Delete Permanently and Empty Trash Can remove entries', async () => {
    await ok(request('PUT', '/repository/trash-gen/listed/b.bin', { payload: 'listed bytes' }), 201);
    await ok(request('DELETE', '/repository/trash-gen/listed'), 204);
    const root = await json(request('GET', '/api/storage/auto-trashcan'));
    expect(root.children).toContainEqual({ uri: '/trash-gen', folder: true });
    const folder = await json(request('GET', '/api/storage/auto-trashcan/trash-gen/listed'));
    expect(folder.children).toEqual([{ uri: '/b.bin', folder: false }]);
    const file = await json(request('GET', '/api/storage/auto-trashcan/trash-gen/listed/b.bin'));
    expect(file).toMatchObject({ repo: 'auto-trashcan', path: '/trash-gen/listed/b.bin', size: '12' });
    expect(file.checksums.sha256).toBe(sha256('listed bytes'));
    const props = await json(request('GET', '/api/storage/auto-trashcan/trash-gen/listed/b.bin?properties'));
    expect(props.properties['trash.originalRepository']).toEqual(['trash-gen']);
    await ok(request('DELETE', '/api/trash/clean/trash-gen/listed'));
    expect((await request('GET', '/api/storage/auto-trashcan/trash-gen/listed')).statusCode).toBe(404);
    expect(await refCount(sha256('listed bytes'))).toBe(0);
    const emptied = await json(request('POST', '/api/trash/empty'));
    expect(emptied.files).toBeGreaterThan(0);
    expect((await search('')).results).toEqual([]);
  });

  it('issue 21: the trash holds the blob (ref count) and the job trash.expire deletes entries past the retention, releasing it', async () => {
    await ok(request('PUT', '/repository/trash-gen/old/c.txt', { payload: 'expiring bytes' }), 201);
    await ok(request('DELETE', '/repository/trash-gen/old/c.txt'), 204);
    const sha = sha256('expiring bytes');
    expect(await refCount(sha)).toBe(1);
    const run = async (): Promise<{ result: { expired: number } }> =>
      json(request('POST', '/api/system/jobs/trash.expire/run'));
    clock += 13 * DAY;
    expect((await run()).result.expired).toBe(0);
    expect((await search('old/c.txt')).results).toHaveLength(1);
    clock += 2 * DAY;
    await run();
    expect((await search('old/c.txt')).results).toEqual([]);
    expect(await refCount(sha)).toBe(0);
  });
});
