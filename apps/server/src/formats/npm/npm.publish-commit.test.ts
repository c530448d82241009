import { createHash } from 'node:crypto';
import { sql } from 'drizzle-orm';
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { createSystemHandle, findRepository } from '../../modules/repositories/repositories.api.ts';
import { queryRows } from '../../platform/db/index.ts';
import { basicAuth, createTestApp, TEST_ADMIN_PASSWORD, type TestApp } from '../../testing/index.ts';
import { tarballPath, versionRecordPath } from './names.ts';
import { makeTarball, publishDocument } from './test-support.ts';

/**
 * Issue 24: an npm publish stores its tarball and its version record in one commit (spooled, then
 * linked): a publish refused at one of the two paths stores neither.
 */

const ADMIN = basicAuth('admin', TEST_ADMIN_PASSWORD);

describe('issue 24: npm publish in one commit', () => {
  let t: TestApp;
  const handle = async () =>
    createSystemHandle(t.app.repositories, (await findRepository(t.app.repositories.db, 'npm-c'))!);
  const publish = async (name: string, version: string, tarball?: Buffer) => {
    const manifest = { name, version, description: 'x' };
    return t.app.inject({
      method: 'PUT',
      url: `/repository/npm-c/${name.replace('/', '%2f')}`,
      headers: { authorization: ADMIN, 'content-type': 'application/json' },
      payload: JSON.stringify(publishDocument(manifest, tarball ?? (await makeTarball(manifest)))),
    });
  };

  beforeAll(async () => {
    t = await createTestApp();
    const res = await t.app.inject({
      method: 'PUT',
      url: '/api/repositories/npm-c',
      headers: { authorization: ADMIN },
      payload: { rclass: 'local', packageType: 'npm' },
    });
    expect(res.statusCode, res.body).toBe(201);
  }, 120_000);
  afterAll(async () => t?.close());

  it('issue 24: a publish stores the tarball and the version record; publishing it again is refused with 403', async () => {
    const res = await publish('one-commit', '1.0.0');
    expect(res.statusCode, res.body).toBe(201);
    const h = await handle();
    expect(await h.stat(tarballPath('one-commit', '1.0.0'))).not.toBeNull();
    expect(await h.stat(versionRecordPath('one-commit', '1.0.0'))).not.toBeNull();
    const again = await publish('one-commit', '1.0.0');
    expect(again.statusCode).toBe(403);
  });

  it('issue 24: other bytes already at the tarball path: the publish is refused (409) and no version record is stored', async () => {
    const h = await handle();
    await h.deploy(tarballPath('taken', '1.0.0'), Buffer.from('not this package'));
    const res = await publish('taken', '1.0.0');
    expect(res.statusCode, res.body).toBe(409);
    expect(await h.stat(versionRecordPath('taken', '1.0.0'))).toBeNull();
    expect((await h.stat(tarballPath('taken', '1.0.0')))?.size).toBe('not this package'.length);
    const doc = await t.app.inject({
      method: 'GET',
      url: '/repository/npm-c/taken',
      headers: { authorization: ADMIN },
    });
    expect(doc.statusCode).toBe(404);
  });

  it('issue 24 / issue 21: after a publish its tarball counts one reference and no spool hold is left behind', async () => {
    const tarball = await makeTarball({ name: 'held', version: '1.0.0', description: 'x' });
    const sha = createHash('sha256').update(tarball).digest('hex');
    const res = await publish('held', '1.0.0', tarball);
    expect(res.statusCode, res.body).toBe(201);
    const db = t.app.granary.database.db;
    const [blob] = await queryRows<{ ref_count: number }>(
      db,
      sql`SELECT ref_count FROM blobs WHERE sha256 = ${sha}`,
    );
    expect(Number(blob?.ref_count)).toBe(1);
    expect(await queryRows(db, sql`SELECT id FROM blob_holds`)).toEqual([]);
  });
});
