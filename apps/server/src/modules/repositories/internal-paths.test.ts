import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { makeTarball, publishDocument } from '../../formats/npm/test-support.ts';
import { basicAuth, createTestApp, TEST_ADMIN_PASSWORD, type TestApp } from '../../testing/index.ts';

const ADMIN = basicAuth('admin', TEST_ADMIN_PASSWORD);
const RECORD = '.npm/widget/versions/1.0.0.json';
const TARBALL = 'widget/-/widget-1.0.0.tgz';

/** issue 12 §20: a format's own namespace (npm `.npm/`, PyPI `.pypi-external/`) through the generic APIs. */
describe('issue 12 §20: internal paths', () => {
  let t: TestApp;
  /** A string body is sent as bytes, an object as JSON. */
  const call = (method: 'GET' | 'PUT' | 'POST' | 'DELETE', url: string, payload?: string | object) =>
    t.app.inject({
      method,
      url,
      headers: {
        authorization: ADMIN,
        ...(typeof payload === 'string' ? { 'content-type': 'application/octet-stream' } : {}),
      },
      payload,
    });
  const childrenOf = async (url: string) =>
    ((await call('GET', url)).json().children as { uri: string }[]).map((c) => c.uri).sort();

  beforeAll(async () => {
    t = await createTestApp();
    for (const [key, packageType] of [
      ['npm-local', 'npm'],
      ['npm-other', 'npm'],
      ['pypi-local', 'pypi'],
    ] as const) {
      const res = await call('PUT', `/api/repositories/${key}`, { rclass: 'local', packageType });
      expect(res.statusCode, res.body).toBe(201);
    }
    const manifest = { name: 'widget', version: '1.0.0', description: 'a widget' };
    const tgz = await makeTarball(manifest, {});
    const res = await t.app.inject({
      method: 'PUT',
      url: '/repository/npm-local/widget',
      headers: { authorization: ADMIN, 'content-type': 'application/json' },
      payload: JSON.stringify(publishDocument(manifest, tgz)),
    });
    expect(res.statusCode, res.body).toBeLessThan(300);
  }, 120_000);
  afterAll(() => t?.close());

  it('issue 12 §20: /api/storage lists no internal folder and finds no internal file', async () => {
    expect(await childrenOf('/api/storage/npm-local')).toEqual(['/widget']);
    for (const path of ['.npm', '.npm/widget', RECORD, '.NPM/widget'])
      expect((await call('GET', `/api/storage/npm-local/${path}`)).statusCode, path).toBe(404);
    // nor its properties, to read or to write
    expect((await call('GET', `/api/storage/npm-local/${RECORD}?properties`)).statusCode).toBe(404);
    expect((await call('PUT', `/api/storage/npm-local/${RECORD}?properties=a=1`)).statusCode).toBe(404);
    expect((await call('DELETE', `/api/storage/npm-local/${RECORD}?properties=a`)).statusCode).toBe(404);
    // the format itself still reads its records: the packument lists the version
    const packument = await call('GET', '/repository/npm-local/widget');
    expect(Object.keys(packument.json().versions)).toEqual(['1.0.0']);
  });

  it('issue 12 §20: /api/copy and /api/move never write into a format namespace', async () => {
    for (const mode of ['copy', 'move']) {
      for (const to of [
        '/npm-other/.npm/widget/versions/6.6.6.json',
        '/npm-local/.npm/evil/versions/1.0.0.json',
      ]) {
        const res = await call('POST', `/api/${mode}/npm-local/${TARBALL}?to=${to}`);
        expect(res.statusCode, `${mode} ${to}: ${res.body}`).toBe(400);
        expect(res.json().errors[0]).toMatchObject({ code: 'INVALID_PATH' });
        expect(res.json().errors[0].message).toContain('reserved by the npm format');
      }
      // a folder copied under the namespace: refused as a whole, nothing written
      const folder = await call('POST', `/api/${mode}/npm-local/widget?to=/npm-other/.npm/widget`);
      expect(folder.statusCode, folder.body).toBe(400);
      // nor read out of it
      const out = await call('POST', `/api/${mode}/npm-local/.npm/widget?to=/npm-other/stolen`);
      expect(out.statusCode, out.body).toBe(404);
    }
    expect((await call('GET', '/api/storage/npm-other')).json().children).toEqual([]);
    expect((await call('GET', '/repository/npm-local/evil')).statusCode).toBe(404);
    expect(await childrenOf('/api/storage/npm-local')).toEqual(['/widget']);
  });

  it("issue 12 §20: copying a whole repository moves its packages, not the format's records (the format rebuilds them)", async () => {
    const res = await call('POST', '/api/copy/npm-local/?to=/npm-other/');
    expect(res.statusCode, res.body).toBe(200);
    const messages = (res.json().messages as { message: string }[]).map((m) => m.message);
    expect(messages).toEqual([`copying npm-local/${TARBALL} to npm-other/${TARBALL} completed successfully`]);
    const packument = await call('GET', '/repository/npm-other/widget');
    expect(packument.statusCode, packument.body).toBe(200);
    expect(Object.keys(packument.json().versions)).toEqual(['1.0.0']);
    expect(await childrenOf('/api/storage/npm-other')).toEqual(['/widget']);
  });

  it('issue 12 §20: the generic PUT, GET and DELETE of a non-generic repository leave the namespace alone', async () => {
    const put = await call(
      'PUT',
      '/repository/pypi-local/.pypi-external/evil/evil-1.0-py3-none-any.whl',
      'PK',
    );
    expect(put.statusCode, put.body).toBe(400);
    expect(put.body).toContain('reserved by the pypi format');
    expect((await call('GET', '/api/storage/pypi-local')).json().children).toEqual([]);
    // npm's own records: not served as files, not listed in the folder page, not deleted
    expect((await call('GET', `/repository/npm-local/${RECORD}`)).statusCode).toBe(404);
    const page = await call('GET', '/repository/npm-local/');
    expect(page.statusCode).toBe(200);
    expect(page.body).toContain('widget/');
    expect(page.body).not.toContain('.npm');
    expect((await call('DELETE', `/repository/npm-local/${RECORD}`)).statusCode).toBeGreaterThanOrEqual(400);
    expect((await call('DELETE', '/repository/pypi-local/.pypi-external/evil')).statusCode).toBe(404);
    expect(Object.keys((await call('GET', '/repository/npm-local/widget')).json().versions)).toEqual([
      '1.0.0',
    ]);
  });

  it("issue 12 §20: the tree browser's calls, folder archives and search do not show the namespace", async () => {
    const actions = await call('GET', `/ui/api/v1/ui/artifactactions?repoKey=npm-local&path=${RECORD}`);
    expect(actions.statusCode).toBe(404);
    const zip = await call('GET', '/api/archive/download/npm-local?archiveType=zip');
    expect(zip.statusCode).toBe(200);
    expect(zip.headers['x-archive-files']).toBe('1');
    expect(zip.rawPayload.includes(Buffer.from('.npm/'))).toBe(false);
    expect(zip.rawPayload.includes(Buffer.from(TARBALL))).toBe(true);
    const search = await call('GET', '/api/search/artifact?name=1.0.0.json');
    expect(search.json().results).toEqual([]);
    const quick = await call('POST', '/ui/api/v1/ui/artifactsearch/quick', { query: 'widget' });
    const paths = (quick.json().results as { relativePath: string }[]).map((r) => r.relativePath).sort();
    // the tarball (in both repositories since the copy above), and none of the records
    expect(paths).toEqual([`npm-local/${TARBALL}`, `npm-other/${TARBALL}`]);
  });

  it('issue 12 §17: ?properties= names own properties only (`constructor` is not one)', async () => {
    const set = await call('PUT', `/api/storage/npm-local/${TARBALL}?properties=team=web`);
    expect(set.statusCode, set.body).toBe(204);
    for (const name of ['constructor', '__proto__', 'toString']) {
      const res = await call('GET', `/api/storage/npm-local/${TARBALL}?properties=${name}`);
      expect(res.statusCode, `${name}: ${res.body}`).toBe(404);
    }
    const own = await call('GET', `/api/storage/npm-local/${TARBALL}?properties=team,constructor`);
    expect(own.statusCode, own.body).toBe(200);
    expect(own.json().properties).toEqual({ team: ['web'] });
  });
});
