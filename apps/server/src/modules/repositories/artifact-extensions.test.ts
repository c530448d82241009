import { and, eq } from 'drizzle-orm';
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import {
  basicAuth,
  createTestApp,
  TEST_ADMIN_PASSWORD,
  type TestApp,
  testEngine,
} from '../../testing/index.ts';
import { type ArtifactExtension, ArtifactExtensionPoint } from './artifact-extensions.ts';
import { artifacts } from './repositories.schema.ts';

const ADMIN = basicAuth('admin', TEST_ADMIN_PASSWORD);

describe('issue 13 §4: the artifact extension point', () => {
  it('issue 13 §4: a second extension under the same id is refused; extensions are called in registration order', async () => {
    const point = new ArtifactExtensionPoint();
    const calls: string[] = [];
    const ext = (id: string): ArtifactExtension => ({
      id,
      removed: async (_tx, _repo, paths) => {
        calls.push(`${id}:${paths.join(',')}`);
      },
      downloaded: (_repo, path) => calls.push(`${id} got ${path}`),
    });
    point.register(ext('packages'));
    point.register({ id: 'quiet' });
    point.register(ext('scanning'));
    expect(() => point.register(ext('packages'))).toThrow(/"packages" is already registered/);
    await point.removed({} as never, 'r', ['a', 'b']);
    point.downloaded('r', 'c');
    expect(calls).toEqual(['packages:a,b', 'scanning:a,b', 'packages got c', 'scanning got c']);
  });
});

describe(`issue 13 §4: repositories tell registered extensions of stored, removed and downloaded files (${testEngine})`, () => {
  let t: TestApp;
  const heard: string[] = [];
  let fail: 'stored' | 'removed' | null = null;
  let removedStillThere: number | null = null;

  beforeAll(async () => {
    t = await createTestApp();
    t.app.repositories.artifactExtensions.register({
      id: 'test-listener',
      beforeStore: async (file) => {
        heard.push(`before ${file.repositoryKey}/${file.path} ${file.size}`);
      },
      stored: async (_tx, file) => {
        if (fail === 'stored') throw new Error('the listener failed');
        heard.push(`stored ${file.repositoryKey}/${file.path} ${file.packageType}`);
      },
      removed: async (tx, repositoryId, paths) => {
        if (fail === 'removed') throw new Error('the listener failed');
        // the executor is the removing transaction: the row it deleted is already gone there
        const rows = await tx
          .select({ id: artifacts.id })
          .from(artifacts)
          .where(and(eq(artifacts.repositoryId, repositoryId), eq(artifacts.path, paths[0] ?? '')));
        removedStillThere = rows.length;
        heard.push(`removed ${paths.join(',')}`);
      },
      downloaded: (_repositoryId, path) => heard.push(`downloaded ${path}`),
    });
  });
  afterAll(async () => {
    await t?.close();
  });

  const put = (path: string, body: string) =>
    t.app.inject({
      method: 'PUT',
      url: `/repository/generic-local/${path}`,
      headers: { authorization: ADMIN },
      payload: body,
    });
  const get = (path: string, headers: Record<string, string> = {}, method: 'GET' | 'HEAD' = 'GET') =>
    t.app.inject({
      method,
      url: `/repository/generic-local/${path}`,
      headers: { authorization: ADMIN, ...headers },
    });

  it('issue 13 §4: the packages index is registered into the extension point at boot (a second "packages" is refused)', () => {
    expect(() => t.app.repositories.artifactExtensions.register({ id: 'packages' })).toThrow(
      /already registered/,
    );
  });

  it('issue 13 §4: a stored file is heard before and inside its transaction; a failing listener stores nothing', async () => {
    heard.length = 0;
    expect((await put('ext/one.txt', 'hello')).statusCode).toBe(201);
    expect(heard).toEqual(['before generic-local/ext/one.txt 5', 'stored generic-local/ext/one.txt generic']);
    fail = 'stored';
    try {
      expect((await put('ext/two.txt', 'world')).statusCode).toBe(500);
    } finally {
      fail = null;
    }
    expect((await get('ext/two.txt')).statusCode).toBe(404);
  });

  it('issue 13 §4: a removed file is heard inside the removing transaction; a failing listener removes nothing', async () => {
    expect((await put('ext/three.txt', 'three')).statusCode).toBe(201);
    fail = 'removed';
    try {
      const res = await t.app.inject({
        method: 'DELETE',
        url: '/repository/generic-local/ext/three.txt',
        headers: { authorization: ADMIN },
      });
      expect(res.statusCode).toBe(500);
    } finally {
      fail = null;
    }
    expect((await get('ext/three.txt')).body).toBe('three');
    heard.length = 0;
    const res = await t.app.inject({
      method: 'DELETE',
      url: '/repository/generic-local/ext/three.txt',
      headers: { authorization: ADMIN },
    });
    expect(res.statusCode).toBe(204);
    expect(heard).toEqual(['removed ext/three.txt']);
    expect(removedStillThere).toBe(0);
  });

  it('issue 13 §4: a whole download is heard; HEAD and ranges that skip the start are not', async () => {
    expect((await put('ext/four.txt', 'four bytes')).statusCode).toBe(201);
    heard.length = 0;
    expect((await get('ext/four.txt')).statusCode).toBe(200);
    expect((await get('ext/four.txt', {}, 'HEAD')).statusCode).toBe(200);
    expect((await get('ext/four.txt', { range: 'bytes=2-' })).statusCode).toBe(206);
    expect((await get('ext/four.txt', { range: 'bytes=0-3' })).statusCode).toBe(206);
    expect(heard).toEqual(['downloaded ext/four.txt', 'downloaded ext/four.txt']);
  });
});
