import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { basicAuth, createTestApp, TEST_ADMIN_PASSWORD, type TestApp } from '../../testing/index.ts';
import { makeWheel, uploadForm } from './test-dists.ts';

/**
 * Issue 7 (follow-up check for PyPI): the simple index is derived on read from the files under
 * `packages/{project}/`, so the tree browser's deletes and `/api/move` need no regeneration — this
 * pins that down: the pages list exactly the distributions still stored, right after the change.
 */

const ADMIN = basicAuth('admin', TEST_ADMIN_PASSWORD);
const JSON_INDEX = 'application/vnd.pypi.simple.v1+json';

describe('pypi simple index after deletes and moves made outside the upload API', () => {
  let t: TestApp;
  const request = (method: 'GET' | 'DELETE' | 'POST', url: string, headers: Record<string, string> = {}) =>
    t.app.inject({ method, url, headers: { authorization: ADMIN, ...headers } });
  const files = async (repo: string) => {
    const res = await request('GET', `/repository/${repo}/simple/tidy-dist/`, { accept: JSON_INDEX });
    if (res.statusCode === 404) return null;
    expect(res.statusCode, res.body).toBe(200);
    return (res.json() as { files: { filename: string }[] }).files.map((f) => f.filename).sort();
  };

  beforeAll(async () => {
    t = await createTestApp();
    for (const key of ['py-one', 'py-two']) {
      const res = await t.app.inject({
        method: 'PUT',
        url: `/api/repositories/${key}`,
        headers: { authorization: ADMIN },
        payload: { rclass: 'local', packageType: 'pypi' },
      });
      expect(res.statusCode, res.body).toBe(201);
    }
    for (const version of ['1.0.0', '2.0.0']) {
      const form = await uploadForm(await makeWheel({ name: 'tidy-dist', version }), {
        name: 'tidy-dist',
        version,
        filetype: 'bdist_wheel',
      });
      const res = await t.app.inject({
        method: 'POST',
        url: '/repository/py-one/',
        headers: { authorization: ADMIN, 'content-type': form.contentType },
        payload: form.body,
      });
      expect(res.statusCode, res.body).toBe(200);
    }
  }, 60_000);
  afterAll(async () => t?.close());

  it('issue 7: after /api/move of a version folder and a tree-browser delete, each project page lists exactly what is stored', async () => {
    expect(await files('py-one')).toEqual([
      'tidy_dist-1.0.0-py3-none-any.whl',
      'tidy_dist-2.0.0-py3-none-any.whl',
    ]);
    const moved = await request(
      'POST',
      '/api/move/py-one/packages/tidy-dist/2.0.0?to=/py-two/packages/tidy-dist/2.0.0',
    );
    expect(moved.statusCode, moved.body).toBe(200);
    expect(await files('py-one')).toEqual(['tidy_dist-1.0.0-py3-none-any.whl']);
    expect(await files('py-two')).toEqual(['tidy_dist-2.0.0-py3-none-any.whl']);
    expect((await request('DELETE', '/repository/py-one/packages/tidy-dist/1.0.0/')).statusCode).toBe(204);
    expect(await files('py-one')).toBeNull();
  });
});
