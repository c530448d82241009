import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import {
  basicAuth,
  createTestApp,
  TEST_ADMIN_PASSWORD,
  type TestApp,
  testEngine,
} from '../../testing/index.ts';

const ADMIN = basicAuth('admin', TEST_ADMIN_PASSWORD);
const URL = '/repository/generic-local/cache/file.bin';

/**
 * The hot read path serves small files from memory and remembers artifact rows for a second: a
 * user must never notice either — what was just overwritten, moved or deleted is never served.
 */
describe(`read caches never serve stale content (${testEngine})`, () => {
  let t: TestApp;
  const put = (url: string, body: string) =>
    t.app.inject({ method: 'PUT', url, headers: { authorization: ADMIN }, payload: body });
  const get = (url: string, headers: Record<string, string> = {}) =>
    t.app.inject({ method: 'GET', url, headers: { authorization: ADMIN, ...headers } });

  beforeAll(async () => {
    t = await createTestApp();
  });
  afterAll(async () => {
    await t.close();
  });

  it('an overwrite is served at once, after the old bytes were read (and cached)', async () => {
    expect((await put(URL, 'first version')).statusCode).toBe(201);
    expect((await get(URL)).body).toBe('first version');
    expect((await get(URL)).body).toBe('first version');
    expect((await put(URL, 'second, longer version')).statusCode).toBe(201);
    const again = await get(URL);
    expect(again.body).toBe('second, longer version');
    expect(again.headers['content-length']).toBe(String('second, longer version'.length));
  });

  it('a byte range of a cached file is the right slice with 206 and Content-Range', async () => {
    await get(URL);
    const part = await get(URL, { range: 'bytes=8-13' });
    expect(part.statusCode).toBe(206);
    expect(part.body).toBe('longer');
    expect(part.headers['content-range']).toBe(`bytes 8-13/${'second, longer version'.length}`);
  });

  it('a deleted file is gone at once; a moved file answers at its new path only', async () => {
    await put('/repository/generic-local/cache/moved.txt', 'moving');
    expect((await get('/repository/generic-local/cache/moved.txt')).statusCode).toBe(200);
    const move = await t.app.inject({
      method: 'POST',
      url: '/api/move/generic-local/cache/moved.txt?to=/generic-local/cache/there.txt',
      headers: { authorization: ADMIN },
    });
    expect(move.statusCode).toBe(200);
    expect((await get('/repository/generic-local/cache/moved.txt')).statusCode).toBe(404);
    expect((await get('/repository/generic-local/cache/there.txt')).body).toBe('moving');

    expect(
      (await t.app.inject({ method: 'DELETE', url: URL, headers: { authorization: ADMIN } })).statusCode,
    ).toBe(204);
    expect((await get(URL)).statusCode).toBe(404);
  });
});
