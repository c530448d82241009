import { Readable } from 'node:stream';
import { sql } from 'drizzle-orm';
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { zipBomb, zipDirectoryBomb } from '../../platform/archives/archive-bombs.ts';
import type { BlobStore } from '../../platform/blobs/index.ts';
import { queryRows } from '../../platform/db/index.ts';
import {
  basicAuth,
  createTestApp,
  TEST_ADMIN_PASSWORD,
  type TestApp,
  testEngine,
} from '../../testing/index.ts';
import {
  ARCHIVE_ENTRIES_JOB,
  ARCHIVE_SCAN_MAX,
  indexArchiveEntries,
  readZipEntries,
} from './archive-entries.ts';

/** A blob store holding one zip in memory, counting the bytes read from it. */
function storeOf(zip: Buffer) {
  const read = { bytes: 0 };
  const blobs = {
    async get(_sha256: string, range?: { start: number; end: number }) {
      const part = range ? zip.subarray(range.start, range.end + 1) : zip;
      read.bytes += part.length;
      return Readable.from([part]);
    },
  } as unknown as BlobStore;
  return { blobs, read };
}

describe('archive entries (issue 12 §1)', () => {
  it('issue 12 §1: a zip directory of records never indexed (folders) is read no further than the scan limit', async () => {
    const zip = zipDirectoryBomb(ARCHIVE_SCAN_MAX * 4);
    const { blobs, read } = storeOf(zip);
    expect(await readZipEntries(blobs, 'x', zip.length)).toEqual([]);
    // Records are all alike (46 bytes and a name): the limit (a quarter) was read, not all of it.
    expect(read.bytes).toBeLessThan(zip.length / 2);
  });

  it('issue 12 §1: a jar holding a 3 GiB entry of zeros is listed from its directory, never inflated', async () => {
    const jar = zipBomb([
      { name: 'org/acme/Bomb.class', content: 'class' },
      { name: 'org/acme/zeros.bin', zeros: 3 * 1024 ** 3 },
    ]);
    const { blobs, read } = storeOf(jar);
    expect(await readZipEntries(blobs, 'x', jar.length)).toEqual([
      'org/acme/Bomb.class',
      'org/acme/zeros.bin',
    ]);
    expect(read.bytes).toBeLessThanOrEqual(jar.length);
  });
});

describe(`issue 13 §1: archive entries read by a queued job (${testEngine})`, () => {
  let t: TestApp;
  beforeAll(async () => {
    t = await createTestApp();
  });
  afterAll(async () => {
    await t?.close();
  });
  const entriesAt = async (path: string) =>
    (
      await queryRows<{ entry: string }>(
        t.app.granary.database.db,
        sql`select entry from archive_entries where path = ${path} order by entry`,
      )
    ).map((r) => r.entry);

  it('issue 13 §1: a jar whose entries were not read before its transaction gets a job in that transaction, run once it commits', async () => {
    const jar = zipBomb([
      { name: 'org/late/Late.class', content: 'class' },
      { name: 'org/late/late.properties', content: 'x=1' },
    ]);
    // Stored under a name that is not an archive's, nothing is read before the transaction…
    const put = await t.app.inject({
      method: 'PUT',
      url: '/repository/generic-local/late/lib.bin',
      headers: { authorization: basicAuth('admin', TEST_ADMIN_PASSWORD) },
      payload: jar,
    });
    expect(put.statusCode).toBe(201);
    const { db } = t.app.granary.database;
    const [row] = await queryRows<{ repository_id: string; sha256: string; size: string | number }>(
      db,
      sql`select repository_id, sha256, size from artifacts where path = 'late/lib.bin'`,
    );
    // …then it becomes a jar in a transaction that indexes it: the entries come from a job after the commit.
    let inTransaction = -1;
    await db.transaction(async (tx) => {
      await tx.execute(sql`update artifacts set path = 'late/lib.jar' where path = 'late/lib.bin'`);
      await indexArchiveEntries(tx, row!.repository_id, 'late/lib.jar', {
        sha256: row!.sha256,
        size: Number(row!.size),
      });
      const counted = (await tx.execute(
        sql`select count(*)::int as n from archive_entries where path = 'late/lib.jar'`,
      )) as unknown as { rows: { n: number }[] };
      inTransaction = counted.rows[0]!.n;
    });
    expect(inTransaction).toBe(0);
    const end = Date.now() + 20_000;
    while ((await entriesAt('late/lib.jar')).length === 0 && Date.now() < end)
      await new Promise((r) => setTimeout(r, 50));
    expect(await entriesAt('late/lib.jar')).toEqual(['org/late/Late.class', 'org/late/late.properties']);
    const queues = await t.app.granary.jobs.queueStatus();
    expect(queues.find((q) => q.name === ARCHIVE_ENTRIES_JOB)).toMatchObject({
      done: 1,
      dead: 0,
      pending: 0,
    });
  });
});
