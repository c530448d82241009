import pino from 'pino';
import { afterEach, beforeAll, describe, expect, it } from 'vitest';
import {
  createTestDatabase,
  createTestDatabasePair,
  testDatabaseUrl,
  testEngine,
} from '../../testing/index.ts';
import type { Database } from '../db/index.ts';
import { listEvents, publish, type StoredEvent } from '../events/index.ts';
import { Jobs, pruneJobsAndEvents } from './index.ts';

const silent = pino({ level: 'silent' });
const sleep = (ms: number) => new Promise((r) => setTimeout(r, ms));
async function waitFor(check: () => boolean | Promise<boolean>, timeoutMs = 15_000): Promise<void> {
  const end = Date.now() + timeoutMs;
  while (!(await check())) {
    if (Date.now() > end) throw new Error('timed out waiting');
    await sleep(10);
  }
}
const numbers = (events: StoredEvent[]) => events.map((e) => e.payload.n as number);
const event = (type: string, n: number) => ({ type, payload: { n } });

describe(`issue 13 §1: outbox subscribers (${testEngine})`, () => {
  const databases: Database[] = [];
  const nodes: Jobs[] = [];
  // The embedded database's migrated template is made once per file, on the hook's time.
  beforeAll(async () => {
    await (await createTestDatabase()).close();
  });
  afterEach(async () => {
    for (const jobs of nodes.splice(0)) await jobs.stop(50);
    for (const database of databases.splice(0)) await database.close();
  });
  const one = async () => {
    const database = await createTestDatabase();
    databases.push(database);
    return database;
  };
  const node = (database: Database, id: string) => {
    const jobs = new Jobs(database.db, id, silent, { channel: database.channel, pollMs: 20 });
    nodes.push(jobs);
    return jobs;
  };
  const statusOf = async (jobs: Jobs, name: string) =>
    (await jobs.subscriberStatus()).find((s) => s.name === name)!;

  it('issue 13 §1: a new subscriber starts from now; one from the beginning gets what was there; types match exactly or by prefix', async () => {
    const database = await one();
    await publish(database.db, event('artifact.deployed', 0), event('user.created', 1));
    const jobs = node(database, 'node-a');
    const fromNow: number[] = [];
    const fromStart: number[] = [];
    jobs.subscribe({
      name: 'test.now',
      types: ['artifact.*'],
      handle: async (events) => {
        fromNow.push(...numbers(events));
      },
    });
    jobs.subscribe({
      name: 'test.start',
      types: ['artifact.deployed', 'user.created'],
      from: 'beginning',
      handle: async (events) => {
        fromStart.push(...numbers(events));
      },
    });
    await jobs.start();
    await publish(database.db, event('artifact.deleted', 2), event('other.thing', 3));
    await publish(database.db, event('user.created', 4), event('artifactory.x', 5));
    await waitFor(() => fromNow.length >= 1 && fromStart.length >= 3);
    await waitFor(async () => (await statusOf(jobs, 'test.now')).lag === 0);
    await sleep(100);
    expect(fromNow).toEqual([2]);
    expect(fromStart).toEqual([0, 1, 4]);
    expect(await statusOf(jobs, 'test.now')).toMatchObject({
      types: ['artifact.*'],
      lag: 0,
      delivered: 1,
      failures: 0,
      lastError: null,
    });
    expect(() => jobs.subscribe({ name: 'test.now', types: ['*'], handle: async () => {} })).toThrow(
      /duplicate/,
    );
  });

  it('issue 13 §1: a subscriber’s progress survives a restart: it goes on where it stopped, without the events it had', async () => {
    const database = await one();
    const first = node(database, 'node-a');
    const before: number[] = [];
    first.subscribe({
      name: 'test.restart',
      types: ['*'],
      handle: async (events) => {
        before.push(...numbers(events));
      },
    });
    await first.start();
    await publish(database.db, event('a.one', 1), event('a.two', 2));
    await waitFor(() => before.length === 2);
    await first.stop();
    await publish(database.db, event('a.three', 3));
    const after: number[] = [];
    const second = node(database, 'node-a');
    second.subscribe({
      name: 'test.restart',
      types: ['*'],
      from: 'beginning', // only where a subscriber is new
      handle: async (events) => {
        after.push(...numbers(events));
      },
    });
    await second.start();
    await waitFor(() => after.length >= 1);
    await sleep(100);
    expect(before).toEqual([1, 2]);
    expect(after).toEqual([3]);
  });

  it('issue 13 §1: a failing handler is retried with back-off, its error shown in the status, and the position does not move until it succeeds', async () => {
    const database = await one();
    const jobs = node(database, 'node-a');
    const batches: number[][] = [];
    let failing = true;
    jobs.subscribe({
      name: 'test.failing',
      types: ['hook.*'],
      backoffMs: 30,
      handle: async (events) => {
        batches.push(numbers(events));
        if (failing) throw new Error('webhook receiver answered 503');
      },
    });
    await jobs.start();
    await publish(database.db, event('hook.a', 1), event('hook.b', 2));
    await waitFor(async () => (await statusOf(jobs, 'test.failing')).failures >= 2);
    const failed = await statusOf(jobs, 'test.failing');
    expect(failed).toMatchObject({ lastError: 'webhook receiver answered 503', lag: 2, delivered: 0 });
    expect(failed.retryAt).not.toBeNull();
    failing = false;
    await waitFor(async () => (await statusOf(jobs, 'test.failing')).delivered === 2);
    expect(await statusOf(jobs, 'test.failing')).toMatchObject({ failures: 0, lastError: null, lag: 0 });
    // every try had the same batch; the back-off doubles (30 ms, 60 ms, …) so a few tries, not dozens
    expect(new Set(batches.map((b) => b.join()))).toEqual(new Set(['1,2']));
    expect(batches.length).toBeGreaterThanOrEqual(3);
    expect(batches.length).toBeLessThan(12);
  });

  it('issue 13 §1: two nodes deliver to one subscriber one at a time, every event once and in commit order', async () => {
    const [da, db2] = await createTestDatabasePair();
    databases.push(da, db2);
    const got: number[] = [];
    let inside = 0;
    let most = 0;
    for (const [database, id] of [
      [da, 'node-a'],
      [db2, 'node-b'],
    ] as const) {
      node(database, id).subscribe({
        name: 'test.shared',
        types: ['n.*'],
        batchSize: 7,
        handle: async (events) => {
          inside += 1;
          most = Math.max(most, inside);
          await sleep(5);
          got.push(...numbers(events));
          inside -= 1;
        },
      });
    }
    await Promise.all(nodes.map((j) => j.start()));
    for (let n = 1; n <= 50; n++) await publish((n % 2 ? da : db2).db, event('n.x', n));
    await waitFor(() => got.length >= 50, 15_000);
    await sleep(100);
    expect(got).toEqual(Array.from({ length: 50 }, (_, i) => i + 1));
    expect(most).toBe(1);
  });

  it('issue 13 §1: the prune job deletes done jobs and the events every subscriber passed, after their retention; dead jobs and undelivered events stay', async () => {
    const database = await one();
    const jobs = node(database, 'node-a');
    jobs.queue<string>({
      name: 'test.prune',
      maxAttempts: 1,
      handler: async (payload) => {
        if (payload === 'bad') throw new Error('bad payload');
      },
    });
    const got: number[] = [];
    jobs.subscribe({
      name: 'test.reader',
      types: ['*'],
      from: 'beginning',
      handle: async (events) => {
        got.push(...numbers(events));
      },
    });
    await jobs.start();
    await jobs.enqueue(database.db, 'test.prune', 'good');
    await jobs.enqueue(database.db, 'test.prune', 'bad');
    await publish(database.db, event('x.a', 1), event('x.b', 2), event('x.c', 3));
    await waitFor(async () => {
      const [q] = await jobs.queueStatus();
      return q!.done === 1 && q!.dead === 1 && got.length === 3;
    });
    await jobs.stop();
    await publish(database.db, event('x.d', 4));
    // Within their retention nothing goes.
    expect(await pruneJobsAndEvents(database.db, { doneJobsMs: 3_600_000, eventsMs: 3_600_000 })).toEqual({
      doneJobs: 0,
      events: 0,
    });
    expect(await pruneJobsAndEvents(database.db, { doneJobsMs: 0, eventsMs: 0 })).toEqual({
      doneJobs: 1,
      events: 3,
    });
    expect(numbers(await listEvents(database.db))).toEqual([4]);
    expect(await jobs.queueStatus()).toEqual([
      { name: 'test.prune', pending: 0, running: 0, dead: 1, done: 0, lastError: 'bad payload' },
    ]);
  });
});

// Only on a server: PGlite runs one transaction at a time, so no transaction commits behind another.
if (testDatabaseUrl)
  describe('issue 13 §1: outbox subscribers on a PostgreSQL server', () => {
    it('issue 13 §1: an event of a transaction that commits after a later one is delivered, in (xid, id) order, not skipped', async () => {
      const [da, db2] = await createTestDatabasePair();
      const jobs = new Jobs(db2.db, 'node-b', silent, { pollMs: 20 });
      let commitSlow = () => {};
      let slow: Promise<void> = Promise.resolve();
      try {
        const got: number[] = [];
        jobs.subscribe({
          name: 'test.order',
          types: ['*'],
          handle: async (events) => {
            got.push(...numbers(events));
          },
        });
        await jobs.start();
        let slowWrote!: () => void;
        const wrote = new Promise<void>((resolve) => {
          slowWrote = resolve;
        });
        // The slow transaction takes its id (and transaction id) first…
        slow = da.db.transaction(async (tx) => {
          await publish(tx, event('slow', 1));
          slowWrote();
          await new Promise<void>((resolve) => {
            commitSlow = resolve;
          });
        });
        await wrote;
        // …a later one, with a greater id, commits first.
        await publish(db2.db, event('fast', 2));
        await sleep(300);
        // Delivering 2 now would move a cursor on `id` past 1 before 1 is visible.
        expect(got).toEqual([]);
        commitSlow();
        await slow;
        await waitFor(() => got.length === 2);
        expect(got).toEqual([1, 2]);
      } finally {
        commitSlow();
        await slow.catch(() => {});
        await jobs.stop();
        await da.close();
        await db2.close();
      }
    });
  });
