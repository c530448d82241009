import { sql } from 'drizzle-orm';
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import {
  basicAuth,
  createTestApp,
  TEST_ADMIN_PASSWORD,
  type TestApp,
  testEngine,
} from '../../testing/index.ts';

const ADMIN = basicAuth('admin', TEST_ADMIN_PASSWORD);
const FILES = 10_000;

/**
 * Issue 5: a folder of 10,000 files stays usable — the storage API and the HTML listing give every
 * child, in order, and a file in it is served like any other. (Its speed is measured by
 * `npm run bench`, scenario L1.)
 */
describe(`a folder of ${FILES} files (${testEngine})`, () => {
  let t: TestApp;
  beforeAll(async () => {
    t = await createTestApp();
    // A real deploy for the file that is read back; the other 9,999 rows share its blob, inserted at once.
    const put = await t.app.inject({
      method: 'PUT',
      url: '/repository/generic-local/big/file-00000.bin',
      headers: { authorization: ADMIN },
      payload: 'bytes of every file',
    });
    expect(put.statusCode).toBe(201);
    await t.app.granary.database.db.execute(sql`
      insert into artifacts (repository_id, path, size, sha256, sha1, md5, mime_type, created_by, modified_by)
      select a.repository_id, 'big/file-' || lpad(n::text, 5, '0') || '.bin', a.size, a.sha256, a.sha1, a.md5,
             a.mime_type, 'admin', 'admin'
        from artifacts a, generate_series(1, ${FILES - 1}) n
       where a.path = 'big/file-00000.bin'`);
  });
  afterAll(async () => {
    await t.close();
  });

  it('the storage API lists all 10,000 children of the folder, sorted', async () => {
    const res = await t.app.inject({
      method: 'GET',
      url: '/api/storage/generic-local/big',
      headers: { authorization: ADMIN },
    });
    expect(res.statusCode).toBe(200);
    const children = res.json().children as { uri: string; folder: boolean }[];
    expect(children).toHaveLength(FILES);
    expect(children[0]).toEqual({ uri: '/file-00000.bin', folder: false });
    expect(children.at(-1)).toEqual({ uri: '/file-09999.bin', folder: false });
    expect(children.map((c) => c.uri)).toEqual([...children.map((c) => c.uri)].sort());
  });

  it('the browser listing names every file, and the parent shows one folder', async () => {
    const html = await t.app.inject({
      method: 'GET',
      url: '/repository/generic-local/big/',
      headers: { authorization: ADMIN },
    });
    expect(html.statusCode).toBe(200);
    expect(html.body.match(/href="file-\d{5}\.bin"/g)).toHaveLength(FILES);
    const root = await t.app.inject({
      method: 'GET',
      url: '/api/storage/generic-local',
      headers: { authorization: ADMIN },
    });
    expect(root.json().children).toContainEqual({ uri: '/big', folder: true });
  });

  it('a file deep in the folder is served with its bytes', async () => {
    const res = await t.app.inject({
      method: 'GET',
      url: '/repository/generic-local/big/file-07777.bin',
      headers: { authorization: ADMIN },
    });
    expect(res.statusCode).toBe(200);
    expect(res.body).toBe('bytes of every file');
  });
});
