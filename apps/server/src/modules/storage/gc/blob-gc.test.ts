import { createHash, randomBytes } from 'node:crypto';
import { readdir, stat } from 'node:fs/promises';
import path from 'node:path';
import { Readable } from 'node:stream';
import { sql } from 'drizzle-orm';
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { startTestS3, type TestS3 } from '../../../platform/blobs/s3rver-testing.ts';
import { queryRows } from '../../../platform/db/index.ts';
import {
  basicAuth,
  createTestApp,
  TEST_ADMIN_PASSWORD,
  type TestApp,
  testEngine,
} from '../../../testing/index.ts';
import { collectBlobs } from './blob-gc.ts';

const ADMIN = basicAuth('admin', TEST_ADMIN_PASSWORD);
const USER = basicAuth('gc-user', 'Gc-user-pa55word!');
const sha256 = (b: Buffer) => createHash('sha256').update(b).digest('hex');

/** Bytes of every file under the filesystem blob store (what `du` would say, near enough). */
async function storeBytes(home: string): Promise<number> {
  let total = 0;
  const walk = async (dir: string) => {
    for (const entry of await readdir(dir, { withFileTypes: true }).catch(() => [])) {
      const p = path.join(dir, entry.name);
      if (entry.isDirectory()) await walk(p);
      else total += (await stat(p)).size;
    }
  };
  await walk(path.join(home, 'blobs'));
  return total;
}

describe(`issue 21 blob garbage collection (${testEngine})`, () => {
  let t: TestApp;
  let ahead = 0;
  const db = () => t.app.granary.database.db;
  const refCount = async (sha: string) =>
    (await queryRows<{ ref_count: number }>(db(), sql`SELECT ref_count FROM blobs WHERE sha256 = ${sha}`))[0]
      ?.ref_count ?? null;
  const inStore = async (sha: string) => (await t.app.granary.blobs.stat(sha)) !== null;
  const call = (method: string, url: string, payload?: Buffer | object, auth = ADMIN) =>
    t.app.inject({
      method: method as 'GET',
      url,
      headers: {
        authorization: auth,
        ...(Buffer.isBuffer(payload) ? { 'content-type': 'application/octet-stream' } : {}),
      },
      payload,
    });
  const deploy = (repoPath: string, body: Buffer) => call('PUT', `/repository/${repoPath}`, body);
  /** Deletes for good (through the trash can when there is one: emptied). */
  const remove = async (repoPath: string) => {
    const res = await call('DELETE', `/repository/${repoPath}`);
    expect(res.statusCode, res.body).toBe(204);
  };
  const emptyTrash = () => call('POST', '/api/trash/empty');
  const gcNow = async (dryRun = false) => {
    const res = await call('POST', `/api/system/storage/gc${dryRun ? '?dryRun=true' : ''}`);
    expect(res.statusCode, res.body).toBe(200);
    return res.json();
  };

  beforeAll(async () => {
    // Grace 0: every blob nothing holds is collectable at once (the race tests need exactly that).
    // The app's clock runs `ahead` of the wall clock: the OCI test moves it past the upload expiry.
    t = await createTestApp(
      { blobGcGraceSecs: 0, ociGcGraceSecs: 0, maxUploadsPerAddress: 64 },
      { now: () => Date.now() + ahead },
    );
    for (const [key, packageType] of [
      ['maven-gc', 'maven'],
      ['pypi-gc', 'pypi'],
    ])
      expect(
        (await call('PUT', `/api/repositories/${key}`, { rclass: 'local', packageType })).statusCode,
      ).toBe(201);
    expect(
      (await call('PUT', '/api/security/users/gc-user', { password: 'Gc-user-pa55word!' })).statusCode,
    ).toBe(201);
  });
  afterAll(async () => {
    await t?.close();
  });

  it('issue 21: reference counts follow deploys, copies (+1), moves (0), overwrites and deletes, in the same transaction', async () => {
    const a = randomBytes(3000);
    const b = randomBytes(3000);
    expect((await deploy('generic-local/refs/a.bin', a)).statusCode).toBe(201);
    expect(await refCount(sha256(a))).toBe(1);
    expect((await deploy('generic-local/refs/a-again.bin', a)).statusCode).toBe(201);
    expect(await refCount(sha256(a))).toBe(2);
    expect(
      (await call('POST', '/api/copy/generic-local/refs/a.bin?to=/generic-local/copied/a.bin')).statusCode,
    ).toBe(200);
    expect(await refCount(sha256(a))).toBe(3);
    expect(
      (await call('POST', '/api/move/generic-local/copied/a.bin?to=/generic-local/moved/a.bin')).statusCode,
    ).toBe(200);
    expect(await refCount(sha256(a))).toBe(3);
    // Overwrite: the old content loses one, the new one gains one.
    expect((await deploy('generic-local/moved/a.bin', b)).statusCode).toBe(201);
    expect(await refCount(sha256(a))).toBe(2);
    expect(await refCount(sha256(b))).toBe(1);
    for (const p of ['refs/a.bin', 'refs/a-again.bin', 'moved/a.bin']) await remove(`generic-local/${p}`);
    await emptyTrash();
    expect(await refCount(sha256(a))).toBe(0);
    expect(await refCount(sha256(b))).toBe(0);
    // No hold is left behind by the deploys.
    expect(
      await queryRows(db(), sql`SELECT 1 FROM blob_holds WHERE sha256 IN (${sha256(a)}, ${sha256(b)})`),
    ).toEqual([]);
  });

  it('issue 21: GC deletes a blob nothing holds once past the grace period, never a held one; a dry run deletes nothing', async () => {
    const gone = randomBytes(5000);
    const kept = randomBytes(7000);
    expect((await deploy('generic-local/grace/gone.bin', gone)).statusCode).toBe(201);
    expect((await deploy('generic-local/grace/kept.bin', kept)).statusCode).toBe(201);
    await remove('generic-local/grace/gone.bin');
    await emptyTrash();
    const deps = { db: db(), blobs: t.app.granary.blobs, log: t.app.log, node: 'test' } as const;
    // Inside an hour's grace: nothing goes.
    const early = await collectBlobs(deps as never, { graceSecs: 3600, dryRun: false, trigger: 'manual' });
    expect(early.reclaimedBlobs).toBe(0);
    expect(await inStore(sha256(gone))).toBe(true);
    // The dry run counts it and deletes nothing.
    const dry = await gcNow(true);
    expect(dry).toMatchObject({ dryRun: true, reclaimedBlobs: 0, reclaimedBytes: 0 });
    expect(dry.reclaimableBlobs).toBeGreaterThanOrEqual(1);
    expect(dry.reclaimableBytes).toBeGreaterThanOrEqual(5000);
    expect(await inStore(sha256(gone))).toBe(true);
    // Past the grace (0 here): the run reclaims it and answers what it reclaimed.
    const run = await gcNow();
    expect(run.dryRun).toBe(false);
    expect(run.reclaimedBlobs).toBeGreaterThanOrEqual(1);
    expect(run.reclaimedBytes).toBeGreaterThanOrEqual(5000);
    expect(run.durationMs).toBeGreaterThanOrEqual(0);
    expect(await inStore(sha256(gone))).toBe(false);
    expect(await refCount(sha256(gone))).toBeNull();
    expect(await inStore(sha256(kept))).toBe(true);
    const got = await call('GET', '/repository/generic-local/grace/kept.bin');
    expect(got.rawPayload.equals(kept)).toBe(true);
    // The console's status shows the last run.
    const status = await call('GET', '/ui/api/v1/storage/gc');
    expect(status.statusCode).toBe(200);
    expect(status.json()).toMatchObject({
      running: false,
      graceSecs: 0,
      lastRun: { dryRun: false, error: null },
    });
    expect(status.json().lastRun.reclaimedBlobs).toBeGreaterThanOrEqual(1);
  });

  it('issue 21: bytes the store fails to delete keep their row, and a later run reclaims them; small batches paced apart', async () => {
    const stuck = randomBytes(4100);
    const others = Array.from({ length: 5 }, () => randomBytes(4200));
    for (const [i, bytes] of [stuck, ...others].entries())
      expect((await deploy(`generic-local/stuck/${i}.bin`, bytes)).statusCode).toBe(201);
    for (let i = 0; i <= others.length; i++) await remove(`generic-local/stuck/${i}.bin`);
    await emptyTrash();
    const store = t.app.granary.blobs;
    const failing = {
      ...store,
      delete: async (sha: string) => {
        if (sha === sha256(stuck)) throw new Error('EIO: the disk said no');
        await store.delete(sha);
      },
    };
    const deps = { db: db(), blobs: failing, log: t.app.log, node: 'test' } as const;
    const run = await collectBlobs(deps as never, {
      graceSecs: 0,
      dryRun: false,
      trigger: 'manual',
      batchSize: 2,
      restRatio: 0.1,
    });
    expect(run.reclaimedBlobs).toBeGreaterThanOrEqual(others.length);
    for (const bytes of others) expect(await inStore(sha256(bytes))).toBe(false);
    expect(await inStore(sha256(stuck))).toBe(true);
    expect(await refCount(sha256(stuck))).toBe(0);
    expect((await gcNow()).reclaimedBlobs).toBeGreaterThanOrEqual(1);
    expect(await inStore(sha256(stuck))).toBe(false);
    expect(await refCount(sha256(stuck))).toBeNull();
  });

  it('issue 21: the GC and consistency APIs are for administrators only (401 anonymous, 403 users)', async () => {
    for (const [method, url] of [
      ['POST', '/api/system/storage/gc'],
      ['POST', '/api/system/storage/gc?dryRun=true'],
      ['GET', '/ui/api/v1/storage/gc'],
      ['POST', '/ui/api/v1/storage/gc'],
      ['POST', '/ui/api/v1/storage/consistency?repair=true'],
    ] as const) {
      expect((await t.app.inject({ method, url })).statusCode, url).toBe(401);
      expect((await t.app.inject({ method, url, headers: { authorization: USER } })).statusCode, url).toBe(
        403,
      );
    }
  });

  it('issue 21: an upload of content already stored racing GC runs (grace 0) never loses its bytes', async () => {
    // Dedup makes such an upload write nothing: without the hold it takes before looking for the
    // file, a GC between that look and the artifact row would delete the bytes the row then names.
    const deps = { db: db(), blobs: t.app.granary.blobs, log: t.app.log, node: 'race' };
    const gc = () => collectBlobs(deps as never, { graceSecs: 0, dryRun: false, trigger: 'manual' });
    // The window itself, step by step: bytes nothing holds, a put that finds them, a GC, then the row.
    const once = randomBytes(10_000);
    expect((await deploy('generic-local/race/once.bin', once)).statusCode).toBe(201);
    await remove('generic-local/race/once.bin');
    await emptyTrash();
    const dedup = await t.app.granary.blobs.put(Readable.from([once]));
    expect(dedup.created).toBe(false);
    await gc();
    expect(await inStore(sha256(once))).toBe(true);
    await dedup.hold?.release();

    // And as it happens: uploads of the same content, each right after its delete, against a GC loop.
    let done = false;
    let runs = 0;
    const collector = (async () => {
      while (!done) {
        await gc();
        runs += 1;
        await new Promise((r) => setTimeout(r, Math.random() * 3));
      }
    })();
    const failures: string[] = [];
    await Promise.all(
      Array.from({ length: 3 }, async (_, w) => {
        const content = randomBytes(16 * 1024);
        const p = `generic-local/race/${w}.bin`;
        for (let i = 0; i < 6; i += 1) {
          const put = await deploy(p, content);
          if (put.statusCode !== 201) failures.push(`${p}#${i}: ${put.statusCode} ${put.body}`);
          const got = await call('GET', `/repository/${p}`);
          if (got.statusCode !== 200 || !got.rawPayload.equals(content))
            failures.push(`${p}#${i}: ${got.statusCode}`);
          await remove(p);
        }
      }),
    );
    done = true;
    await collector;
    await emptyTrash();
    expect(failures).toEqual([]);
    expect(runs).toBeGreaterThan(5);
  });

  it('issue 21: the consistency check finds and repairs an orphan blob and a wrong count, and reports an artifact whose bytes are gone', async () => {
    const counted = randomBytes(2000);
    const lost = randomBytes(2100);
    const orphan = randomBytes(2200);
    expect((await deploy('generic-local/check/counted.bin', counted)).statusCode).toBe(201);
    expect((await deploy('generic-local/check/lost.bin', lost)).statusCode).toBe(201);
    // Faults: a count off by 4, bytes gone behind the database's back, bytes with no row.
    await db().execute(sql`UPDATE blobs SET ref_count = 5 WHERE sha256 = ${sha256(counted)}`);
    await t.app.granary.blobs.delete(sha256(lost));
    const put = await t.app.granary.blobs.put(Readable.from([orphan]));
    await put.hold?.release();
    await db().execute(sql`DELETE FROM blobs WHERE sha256 = ${sha256(orphan)}`);

    const check = await call('POST', '/ui/api/v1/storage/consistency');
    expect(check.statusCode, check.body).toBe(200);
    expect(check.json()).toMatchObject({
      repair: false,
      orphanBlobs: 1,
      adoptedBlobs: 0,
      miscounted: 1,
      recounted: 0,
    });
    expect(check.json().artifactsWithoutBytes).toEqual(['generic-local/check/lost.bin']);
    expect(await refCount(sha256(counted))).toBe(5);

    const repaired = (await call('POST', '/ui/api/v1/storage/consistency?repair=true')).json();
    expect(repaired).toMatchObject({
      repair: true,
      orphanBlobs: 1,
      adoptedBlobs: 1,
      miscounted: 1,
      recounted: 1,
    });
    expect(repaired.artifactsWithoutBytes).toEqual(['generic-local/check/lost.bin']);
    expect(await refCount(sha256(counted))).toBe(1);
    expect(await refCount(sha256(orphan))).toBe(0);
    // The adopted orphan is the GC's now (grace 0 here).
    await gcNow();
    expect(await inStore(sha256(orphan))).toBe(false);
    const again = (await call('POST', '/ui/api/v1/storage/consistency')).json();
    expect(again).toMatchObject({ orphanBlobs: 0, miscounted: 0, unregistered: 0 });
    await remove('generic-local/check/lost.bin');
    await remove('generic-local/check/counted.bin');
    await emptyTrash();
  });

  it('issue 21 acceptance (small scale): content deployed across formats and deleted goes back to the starting size while 20 uploads racing the GC all stay downloadable', async () => {
    await gcNow();
    const start = await storeBytes(t.home);
    const files: [string, Buffer][] = [
      ['generic-local/accept/big-1.bin', randomBytes(1024 * 1024)],
      ['generic-local/accept/big-2.bin', randomBytes(1024 * 1024)],
      ['maven-gc/com/acme/lib/1.0/lib-1.0.jar', randomBytes(768 * 1024)],
      ['maven-gc/com/acme/lib/1.1/lib-1.1.jar', randomBytes(768 * 1024)],
      ['pypi-gc/acme/acme-1.0.tar.gz', randomBytes(512 * 1024)],
    ];
    for (const [p, bytes] of files) expect((await deploy(p, bytes)).statusCode, p).toBe(201);
    expect(await storeBytes(t.home)).toBeGreaterThan(start + 4 * 1024 * 1024);
    for (const [p] of files) await remove(p);
    await emptyTrash();
    // 20 uploads during the GC: half the same bytes as deleted files (dedup races the delete), half new.
    const uploads = Array.from({ length: 20 }, (_, i): [string, Buffer] => [
      `generic-local/during/${i}.bin`,
      i % 2 === 0 ? files[i % files.length]![1] : randomBytes(32 * 1024),
    ]);
    const [gc, ...puts] = await Promise.all([gcNow(), ...uploads.map(([p, bytes]) => deploy(p, bytes))]);
    expect(gc.dryRun).toBe(false);
    for (const put of puts) expect(put.statusCode, put.body).toBe(201);
    for (const [p, bytes] of uploads) {
      const got = await call('GET', `/repository/${p}`);
      expect(got.statusCode, p).toBe(200);
      expect(got.rawPayload.equals(bytes), p).toBe(true);
    }
    for (const [p] of uploads) await remove(p);
    await emptyTrash();
    await gcNow();
    const end = await storeBytes(t.home);
    expect(Math.abs(end - start)).toBeLessThanOrEqual(Math.max(start * 0.01, 64 * 1024));
  });

  it('issue 21: an OCI upload session holds its first chunk until it expires, and a layer the OCI GC collects releases its bytes', async () => {
    expect(
      (await call('PUT', '/api/repositories/docker-gc', { rclass: 'local', packageType: 'docker' }))
        .statusCode,
    ).toBe(201);
    const open = await call('POST', '/v2/docker-gc/img/blobs/uploads/');
    expect(open.statusCode).toBe(202);
    const location = String(open.headers.location);
    const chunk = randomBytes(20_000);
    const patched = await t.app.inject({
      method: 'PATCH',
      url: location,
      headers: {
        authorization: ADMIN,
        'content-type': 'application/octet-stream',
        'content-range': '0-19999',
      },
      payload: chunk,
    });
    expect(patched.statusCode, patched.body).toBe(202);
    // Held while the session lives: a GC with grace 0 keeps it.
    await gcNow();
    expect(await inStore(sha256(chunk))).toBe(true);
    expect(await refCount(sha256(chunk))).toBe(1);
    // The session expires (the job drops it and its hold): the bytes are the GC's.
    ahead += t.config.ociUploadExpirySecs * 1000 + 1;
    expect(await t.app.granary.jobs.runNow('oci.uploads-expire')).toMatchObject({ expired: 1 });
    expect(await refCount(sha256(chunk))).toBe(0);
    await gcNow();
    expect(await inStore(sha256(chunk))).toBe(false);

    // A layer no manifest references: the OCI GC deletes its artifact row, the counts release its bytes.
    const layer = randomBytes(9000);
    const pushed = await t.app.inject({
      method: 'POST',
      url: `/v2/docker-gc/img/blobs/uploads/?digest=sha256:${sha256(layer)}`,
      headers: { authorization: ADMIN, 'content-type': 'application/octet-stream' },
      payload: layer,
    });
    expect(pushed.statusCode, pushed.body).toBe(201);
    expect(await refCount(sha256(layer))).toBe(1);
    expect(await t.app.granary.jobs.runNow('oci.gc')).toMatchObject({ removed: 1 });
    expect(await refCount(sha256(layer))).toBe(0);
    await gcNow();
    expect(await inStore(sha256(layer))).toBe(false);
  });
});

describe('issue 21 blob garbage collection on S3 (s3rver)', () => {
  let s3: TestS3 | undefined;
  let t: TestApp | undefined;
  afterAll(async () => {
    await t?.close();
    await s3?.stop();
  });

  it('issue 21: on an S3 blob store the GC deletes the object of a deleted artifact and keeps a held one', async () => {
    s3 = await startTestS3();
    const made = await s3.bucketUrl('blobs/');
    t = await createTestApp({ blobstoreUrl: made.url, blobCacheBytes: 0, blobGcGraceSecs: 0 });
    const app = t.app;
    const put = (p: string, body: Buffer) =>
      app.inject({
        method: 'PUT',
        url: `/repository/generic-local/${p}`,
        headers: { authorization: ADMIN, 'content-type': 'application/octet-stream' },
        payload: body,
      });
    const gone = randomBytes(6000);
    const kept = randomBytes(6100);
    expect((await put('s3/gone.bin', gone)).statusCode).toBe(201);
    expect((await put('s3/kept.bin', kept)).statusCode).toBe(201);
    const del = await app.inject({
      method: 'DELETE',
      url: '/repository/generic-local/s3/gone.bin',
      headers: { authorization: ADMIN },
    });
    expect(del.statusCode).toBe(204);
    await app.inject({ method: 'POST', url: '/api/trash/empty', headers: { authorization: ADMIN } });
    const res = await app.inject({
      method: 'POST',
      url: '/api/system/storage/gc',
      headers: { authorization: ADMIN },
    });
    expect(res.statusCode, res.body).toBe(200);
    expect(res.json().reclaimedBlobs).toBeGreaterThanOrEqual(1);
    expect(res.json().reclaimedBytes).toBeGreaterThanOrEqual(6000);
    expect(await app.granary.blobs.stat(sha256(gone))).toBeNull();
    expect(await app.granary.blobs.stat(sha256(kept))).toEqual({ size: 6100 });
  });
});
