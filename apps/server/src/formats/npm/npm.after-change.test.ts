import { createHash } from 'node:crypto';
import { mkdir, mkdtemp, rm, symlink } from 'node:fs/promises';
import os from 'node:os';
import path from 'node:path';
import { gunzipSync } from 'node:zlib';
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import {
  basicAuth,
  createTestApp,
  createTestDatabasePair,
  TEST_ADMIN_PASSWORD,
  type TestApp,
  testEngine,
} from '../../testing/index.ts';
import { makeTarball, publishDocument } from './test-support.ts';

/**
 * Issue 7 (follow-up for npm): packuments are derived from version records, so the tree browser's
 * deletes and `/api/copy`/`/api/move` of tarballs keep each repository's packument listing exactly the
 * tarballs it stores (installable ones only).
 */

const ADMIN = basicAuth('admin', TEST_ADMIN_PASSWORD);

describe('npm packuments after deletes, moves and copies made outside the npm protocol', () => {
  let t: TestApp;
  const tarballs = new Map<string, Buffer>();

  const request = (method: 'GET' | 'PUT' | 'DELETE' | 'POST', url: string, payload?: unknown) =>
    t.app.inject({
      method,
      url,
      headers: {
        authorization: ADMIN,
        ...(payload === undefined ? {} : { 'content-type': 'application/json' }),
      },
      payload: payload === undefined ? undefined : JSON.stringify(payload),
    });
  const publishVersion = async (repo: string, name: string, version: string) => {
    const manifest = { name, version, description: `${name} ${version}` };
    const tgz = await makeTarball(manifest, { 'README.md': `# ${name}\n` });
    tarballs.set(`${name}@${version}`, tgz);
    const res = await request(
      'PUT',
      `/repository/${repo}/${name.replace('/', '%2f')}`,
      publishDocument(manifest, tgz),
    );
    expect(res.statusCode, res.body).toBe(201);
  };
  const packument = async (repo: string, name: string) => {
    const res = await request('GET', `/repository/${repo}/${name.replace('/', '%2f')}`);
    if (res.statusCode === 404) return null;
    expect(res.statusCode, res.body).toBe(200);
    return JSON.parse(res.body) as {
      'dist-tags': Record<string, string>;
      versions: Record<string, { dist: { tarball: string; integrity: string; shasum: string } }>;
    };
  };
  /** Every version a packument lists downloads, and its bytes match the listed integrity. */
  const installable = async (repo: string, name: string) => {
    const p = await packument(repo, name);
    if (!p) return null;
    for (const [version, m] of Object.entries(p.versions)) {
      const res = await request('GET', new URL(m.dist.tarball).pathname);
      expect(res.statusCode, `${name}@${version} in ${repo}`).toBe(200);
      expect(m.dist.integrity).toBe(`sha512-${createHash('sha512').update(res.rawPayload).digest('base64')}`);
      expect(m.dist.shasum).toBe(createHash('sha1').update(res.rawPayload).digest('hex'));
    }
    return { versions: Object.keys(p.versions).sort(), latest: p['dist-tags'].latest };
  };

  beforeAll(async () => {
    t = await createTestApp();
    for (const key of ['npm-one', 'npm-two']) {
      const res = await request('PUT', `/api/repositories/${key}`, { rclass: 'local', packageType: 'npm' });
      expect(res.statusCode, res.body).toBe(201);
    }
    for (const version of ['1.0.0', '1.1.0', '2.0.0']) await publishVersion('npm-one', 'tidy-pkg', version);
    await publishVersion('npm-one', '@tidy/scoped', '1.0.0');
  }, 60_000);
  afterAll(() => t?.close());

  it('issue 7: /api/move of a tarball to another npm repository lists the version there and no longer here', async () => {
    // Read first (issue 24: the packument is then kept in memory, and the move must drop it).
    expect((await installable('npm-one', 'tidy-pkg'))?.versions).toEqual(['1.0.0', '1.1.0', '2.0.0']);
    expect(await packument('npm-two', 'tidy-pkg')).toBeNull();
    const res = await request(
      'POST',
      '/api/move/npm-one/tidy-pkg/-/tidy-pkg-2.0.0.tgz?to=/npm-two/tidy-pkg/-/tidy-pkg-2.0.0.tgz',
    );
    expect(res.statusCode, res.body).toBe(200);
    expect(await installable('npm-one', 'tidy-pkg')).toEqual({
      versions: ['1.0.0', '1.1.0'],
      latest: '1.1.0',
    });
    expect(await installable('npm-two', 'tidy-pkg')).toEqual({ versions: ['2.0.0'], latest: '2.0.0' });
  });

  it('issue 7: /api/copy of a package folder lists its versions in the target, the source unchanged', async () => {
    const res = await request('POST', '/api/copy/npm-one/tidy-pkg?to=/npm-two/tidy-pkg');
    expect(res.statusCode, res.body).toBe(200);
    expect(await installable('npm-two', 'tidy-pkg')).toEqual({
      versions: ['1.0.0', '1.1.0', '2.0.0'],
      latest: '2.0.0',
    });
    expect(await installable('npm-one', 'tidy-pkg')).toEqual({
      versions: ['1.0.0', '1.1.0'],
      latest: '1.1.0',
    });
  });

  it('issue 7: deleting the tarball folder or a whole scope in the tree browser drops the versions from the packument', async () => {
    expect((await request('DELETE', '/repository/npm-two/tidy-pkg/-/')).statusCode).toBe(204);
    expect(await packument('npm-two', 'tidy-pkg')).toBeNull();
    expect((await request('DELETE', '/repository/npm-one/@tidy/')).statusCode).toBe(204);
    expect(await packument('npm-one', '@tidy/scoped')).toBeNull();
    expect(await installable('npm-one', 'tidy-pkg')).toEqual({
      versions: ['1.0.0', '1.1.0'],
      latest: '1.1.0',
    });
  });
});

describe(`issue 24: a packument kept in memory on one node follows another node's publish within a second (${testEngine})`, () => {
  let a: TestApp;
  let b: TestApp;
  let bHome: string;
  beforeAll(async () => {
    const [first, second] = await createTestDatabasePair();
    a = await createTestApp({}, { database: first });
    // The nodes share the blob store (a shared volume) as they share the database.
    bHome = await mkdtemp(path.join(os.tmpdir(), 'granary-node-b-'));
    await mkdir(path.join(a.home, 'blobs'), { recursive: true });
    await symlink(path.join(a.home, 'blobs'), path.join(bHome, 'blobs'));
    b = await createTestApp({}, { database: second, home: bHome });
  });
  afterAll(async () => {
    await b?.close();
    await a?.close();
    await rm(bHome, { recursive: true, force: true });
  });

  it('node b serves the new version (plain and gzip) at most about a second after node a published it', async () => {
    const call = (t: TestApp, method: 'GET' | 'PUT', url: string, payload?: unknown, headers = {}) =>
      t.app.inject({
        method,
        url,
        headers: { authorization: ADMIN, 'content-type': 'application/json', ...headers },
        payload: payload === undefined ? undefined : JSON.stringify(payload),
      });
    expect(
      (await call(a, 'PUT', '/api/repositories/npm-shared', { rclass: 'local', packageType: 'npm' }))
        .statusCode,
    ).toBe(201);
    const publish = async (version: string) => {
      const manifest = { name: 'shared-pkg', version, description: 'x'.repeat(2000) };
      const res = await call(
        a,
        'PUT',
        '/repository/npm-shared/shared-pkg',
        publishDocument(manifest, await makeTarball(manifest)),
      );
      expect(res.statusCode, res.body).toBe(201);
    };
    const versions = async (gzip: boolean) => {
      const res = await call(
        b,
        'GET',
        '/repository/npm-shared/shared-pkg',
        undefined,
        gzip ? { 'accept-encoding': 'gzip' } : {},
      );
      const body = gzip ? gunzipSync(res.rawPayload) : res.rawPayload;
      return Object.keys(JSON.parse(body.toString()).versions).sort();
    };
    await publish('1.0.0');
    expect(await versions(false)).toEqual(['1.0.0']);
    expect(await versions(true)).toEqual(['1.0.0']);
    await publish('1.1.0');
    const published = Date.now();
    await expect.poll(() => versions(false), { timeout: 4000, interval: 50 }).toEqual(['1.0.0', '1.1.0']);
    expect(await versions(true)).toEqual(['1.0.0', '1.1.0']);
    // The stated bound (FRESH_MS, 1 s) plus the test's own polling.
    expect(Date.now() - published).toBeLessThan(2500);
  });
});
