import { randomBytes } from 'node:crypto';
import { mkdtemp, readdir, rm, truncate, unlink, writeFile } from 'node:fs/promises';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import { Readable } from 'node:stream';
import { ListObjectsV2Command, PutObjectCommand } from '@aws-sdk/client-s3';
import pino from 'pino';
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { createTestDatabase } from '../../testing/test-app.ts';
import type { Database } from '../db/index.ts';
import { blobRelativePath } from './blob-path.ts';
import { createBlobStore, openBlobFaults, type ScrubTarget, scrubBlobs } from './index.ts';
import { startTestS3, type TestS3 } from './s3rver-testing.ts';
import type { BlobStore } from './types.ts';

/**
 * issue 12 §9, §11: the scrub re-hashes every blob artifacts refer to, at a bounded rate, on both
 * stores, and reports and records what is damaged, missing or stored empty.
 */

const log = pino({ level: 'silent' });
let s3: TestS3;
let database: Database;

beforeAll(async () => {
  database = await createTestDatabase();
  s3 = await startTestS3();
});

afterAll(async () => {
  await s3?.stop();
  await database?.close();
});

/** A store and a way to change its stored objects behind its back, as a disk or a bucket would. */
interface Fixture {
  store: BlobStore;
  /** Replaces the stored bytes of a blob (bit rot, truncation). */
  overwrite(sha256: string, bytes: Buffer): Promise<void>;
  remove(sha256: string): Promise<void>;
  /** What the store holds outside its blobs (the quarantine). */
  quarantined(): Promise<string[]>;
  cleanup(): Promise<void>;
}

async function filesystemFixture(): Promise<Fixture> {
  const home = await mkdtemp(join(tmpdir(), 'granary-scrub-fs-'));
  const store = await createBlobStore({ home });
  const file = (sha256: string) => join(home, 'blobs', ...blobRelativePath(sha256).split('/'));
  return {
    store,
    overwrite: (sha256, bytes) => writeFile(file(sha256), bytes),
    remove: (sha256) => unlink(file(sha256)),
    quarantined: async () => readdir(join(home, 'blobs', 'quarantine')).catch(() => []),
    cleanup: async () => {
      await store.close();
      await rm(home, { recursive: true, force: true });
    },
  };
}

async function s3Fixture(): Promise<Fixture> {
  const { bucket, url } = await s3.bucketUrl('blobs/');
  const admin = s3.admin;
  const home = await mkdtemp(join(tmpdir(), 'granary-scrub-s3-'));
  const store = await createBlobStore({ home, url });
  const key = (sha256: string) => `blobs/${blobRelativePath(sha256)}`;
  return {
    store,
    overwrite: async (sha256, bytes) => {
      await admin.send(new PutObjectCommand({ Bucket: bucket, Key: key(sha256), Body: bytes }));
    },
    remove: (sha256) => store.delete(sha256),
    quarantined: async () => {
      const page = await admin.send(
        new ListObjectsV2Command({ Bucket: bucket, Prefix: 'blobs/quarantine/' }),
      );
      return (page.Contents ?? []).map((o) => o.Key!.slice('blobs/quarantine/'.length));
    },
    cleanup: async () => {
      await store.close();
      await rm(home, { recursive: true, force: true });
    },
  };
}

async function* targetsOf(list: ScrubTarget[]): AsyncGenerator<ScrubTarget> {
  yield* list;
}

describe.each([
  ['filesystem', filesystemFixture],
  ['s3', s3Fixture],
])('issue 12 §9: the blob scrub on the %s store', (_kind, makeFixture) => {
  it('issue 12 §9, §11: reports and records corrupt, missing and empty blobs; a repaired blob closes its fault', async () => {
    const f = await makeFixture();
    try {
      const good = randomBytes(3000);
      const rotten = randomBytes(5000);
      const gone = randomBytes(100);
      const emptied = randomBytes(200);
      const [g, r, m, e] = await Promise.all(
        [good, rotten, gone, emptied].map((b) => f.store.put(Readable.from([b]))),
      );
      const flipped = Buffer.from(rotten);
      flipped[1234] = flipped[1234]! ^ 0x01; // one bit, same size
      await f.overwrite(r!.sha256, flipped);
      await f.remove(m!.sha256);
      await f.overwrite(e!.sha256, Buffer.alloc(0));
      const targets = [
        { sha256: g!.sha256, size: g!.size, artifact: 'repo/good.bin' },
        { sha256: r!.sha256, size: r!.size, artifact: 'repo/rotten.bin' },
        { sha256: m!.sha256, size: m!.size, artifact: 'repo/gone.bin' },
        { sha256: e!.sha256, size: e!.size, artifact: 'repo/emptied.bin' },
      ];
      const scrub = () =>
        scrubBlobs({
          db: database.db,
          blobs: f.store,
          log,
          targets: targetsOf(targets),
          rateBytesPerSec: 64 * 1024 * 1024,
          signal: new AbortController().signal,
        });

      const report = await scrub();
      expect(report).toMatchObject({
        store: f.store.kind,
        complete: true,
        checked: 4,
        corrupt: 1,
        missing: 1,
        empty: 1,
        unreadable: 0,
      });
      expect(report.faults.map((x) => [x.artifact, x.kind]).sort()).toEqual([
        ['repo/emptied.bin', 'empty'],
        ['repo/gone.bin', 'missing'],
        ['repo/rotten.bin', 'corrupt'],
      ]);
      const open = await openBlobFaults(database.db);
      expect(
        open
          .filter((x) => targets.some((t) => t.sha256 === x.sha256))
          .map((x) => [x.artifact, x.kind, x.source])
          .sort(),
      ).toEqual([
        ['repo/emptied.bin', 'empty', 'scrub'],
        ['repo/gone.bin', 'missing', 'scrub'],
        ['repo/rotten.bin', 'corrupt', 'scrub'],
      ]);
      // The rotten copy (right size, wrong bytes) is moved aside: storing the same content again repairs it.
      expect((await f.quarantined()).some((name) => name.startsWith(r!.sha256))).toBe(true);
      expect(await f.store.stat(r!.sha256)).toBeNull();

      for (const bytes of [rotten, gone, emptied])
        expect((await f.store.put(Readable.from([bytes]))).created).toBe(true);
      const again = await scrub();
      expect(again).toMatchObject({ checked: 4, corrupt: 0, missing: 0, empty: 0, repaired: 3 });
      const still = (await openBlobFaults(database.db)).filter((x) =>
        targets.some((t) => t.sha256 === x.sha256),
      );
      expect(still).toEqual([]);
    } finally {
      await f.cleanup();
    }
  });
});

describe('issue 12 §9: the scrub reads at a bounded rate and stops when asked', () => {
  it('issue 12 §9: 3 MiB at 1 MiB/s takes about 3 s; an abort ends the pass early, marked incomplete', async () => {
    const f = await filesystemFixture();
    try {
      const blobs = await Promise.all(
        [1, 2, 3].map(() => f.store.put(Readable.from([randomBytes(1024 * 1024)]))),
      );
      const targets = blobs.map((b) => ({ sha256: b.sha256, size: b.size }));
      const started = Date.now();
      const report = await scrubBlobs({
        db: database.db,
        blobs: f.store,
        log,
        targets: targetsOf(targets),
        rateBytesPerSec: 1024 * 1024,
        signal: new AbortController().signal,
      });
      const tookMs = Date.now() - started;
      expect(report).toMatchObject({ checked: 3, bytes: 3 * 1024 * 1024, corrupt: 0, complete: true });
      expect(tookMs).toBeGreaterThanOrEqual(2500);

      const abort = new AbortController();
      setTimeout(() => abort.abort(), 300);
      const stopped = await scrubBlobs({
        db: database.db,
        blobs: f.store,
        log,
        targets: targetsOf(targets),
        rateBytesPerSec: 1024 * 1024,
        signal: abort.signal,
      });
      expect(stopped.complete).toBe(false);
      expect(stopped.checked).toBeLessThan(3);
      expect(stopped.corrupt + stopped.missing + stopped.empty).toBe(0);
    } finally {
      await f.cleanup();
    }
  });
});

it('issue 12 §11: a truncated blob (not empty) counts as corrupt, and is not moved aside (storing it again replaces it)', async () => {
  const f = await filesystemFixture();
  try {
    const bytes = randomBytes(4096);
    const { sha256, size } = await f.store.put(Readable.from([bytes]));
    await truncate(
      join((f.store as unknown as { root: string }).root, ...blobRelativePath(sha256).split('/')),
      100,
    );
    const report = await scrubBlobs({
      db: database.db,
      blobs: f.store,
      log,
      targets: targetsOf([{ sha256, size, artifact: 'repo/short.bin' }]),
      rateBytesPerSec: 64 * 1024 * 1024,
      signal: new AbortController().signal,
    });
    expect(report).toMatchObject({ corrupt: 1 });
    expect(report.faults[0]?.detail).toContain('read 100 of 4096 bytes');
    expect(await f.quarantined()).toEqual([]);
    expect((await f.store.put(Readable.from([bytes]))).created).toBe(true);
  } finally {
    await f.cleanup();
  }
});
