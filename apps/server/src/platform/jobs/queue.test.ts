import pino from 'pino';
import { afterEach, beforeAll, describe, expect, it } from 'vitest';
import { createTestDatabase, createTestDatabasePair, testEngine } from '../../testing/index.ts';
import type { Database } from '../db/index.ts';
import { Jobs } from './index.ts';

const silent = pino({ level: 'silent' });
const sleep = (ms: number) => new Promise((r) => setTimeout(r, ms));
async function waitFor(check: () => boolean | Promise<boolean>, timeoutMs = 15_000): Promise<void> {
  const end = Date.now() + timeoutMs;
  while (!(await check())) {
    if (Date.now() > end) throw new Error('timed out waiting');
    await sleep(10);
  }
}

describe(`issue 13 §1: queued jobs (${testEngine})`, () => {
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
  const pair = async () => {
    const both = await createTestDatabasePair();
    databases.push(...both);
    return both;
  };
  /** A node: its own Jobs on a database handle, polling every 20 ms. */
  const node = (database: Database, id: string) => {
    const jobs = new Jobs(database.db, id, silent, { channel: database.channel, pollMs: 20 });
    nodes.push(jobs);
    return jobs;
  };
  const statusOf = async (jobs: Jobs, name: string) =>
    (await jobs.queueStatus()).find((q) => q.name === name)!;

  it('issue 13 §1: a queued job that fails is retried with exponential back-off, then dead-lettered with its error; an admin retry runs it again', async () => {
    const database = await one();
    const a = node(database, 'node-a');
    const runs: { attempt: number; at: number; payload: unknown }[] = [];
    let fail = true;
    a.queue<{ n: number }>({
      name: 'test.flaky',
      maxAttempts: 3,
      backoffMs: 50,
      async handler(payload, ctx) {
        runs.push({ attempt: ctx.attempt, at: Date.now(), payload });
        if (fail) throw new Error(`upstream down (attempt ${ctx.attempt})`);
      },
    });
    await a.start();
    const id = (await a.enqueue(database.db, 'test.flaky', { n: 1 }))!;
    await waitFor(async () => (await statusOf(a, 'test.flaky')).dead === 1);
    expect(runs.map((r) => r.attempt)).toEqual([1, 2, 3]);
    // 50 ms after the first failure, 100 ms after the second
    expect(runs[1]!.at - runs[0]!.at).toBeGreaterThanOrEqual(48);
    expect(runs[2]!.at - runs[1]!.at).toBeGreaterThanOrEqual(98);
    expect(await statusOf(a, 'test.flaky')).toEqual({
      name: 'test.flaky',
      pending: 0,
      running: 0,
      dead: 1,
      done: 0,
      lastError: 'upstream down (attempt 3)',
    });
    const [dead] = await a.deadJobs('test.flaky');
    expect(dead).toMatchObject({
      id,
      attempts: 3,
      payload: { n: 1 },
      lastError: 'upstream down (attempt 3)',
    });
    await sleep(200);
    expect(runs).toHaveLength(3);

    fail = false;
    expect(await a.retryDead('test.flaky', id)).toBe(id);
    await waitFor(async () => (await statusOf(a, 'test.flaky')).done === 1);
    expect(runs.at(-1)).toMatchObject({ attempt: 1, payload: { n: 1 } });
    expect(await statusOf(a, 'test.flaky')).toMatchObject({ dead: 0, done: 1, lastError: null });
    expect(await a.deadJobs('test.flaky')).toEqual([]);
    expect(await a.retryDead('test.flaky', id)).toBeNull();
  });

  it('issue 13 §1: a job enqueued in a transaction exists only if it commits; a dedupe key collapses an unstarted duplicate; runAt delays it', async () => {
    const database = await one();
    const a = node(database, 'node-a');
    const seen: { payload: string; at: number }[] = [];
    a.queue<string>({
      name: 'test.tx',
      handler: async (payload) => {
        seen.push({ payload, at: Date.now() });
      },
    });
    await expect(
      database.db.transaction(async (tx) => {
        await a.enqueue(tx, 'test.tx', 'rolled back');
        throw new Error('rollback');
      }),
    ).rejects.toThrow('rollback');
    await database.db.transaction(async (tx) => {
      expect(await a.enqueue(tx, 'test.tx', 'committed', { dedupeKey: 'k' })).toBeTypeOf('number');
    });
    expect(await a.enqueue(database.db, 'test.tx', 'duplicate', { dedupeKey: 'k' })).toBeNull();
    const enqueuedAt = Date.now();
    await a.enqueue(database.db, 'test.tx', 'later', { runAt: new Date(enqueuedAt + 300) });
    expect(() => a.enqueue(database.db, 'no.such', {})).toThrow(/No job queue named no.such/);
    await a.start();
    await waitFor(() => seen.length === 2);
    expect(seen.map((s) => s.payload)).toEqual(['committed', 'later']);
    expect(seen[1]!.at - enqueuedAt).toBeGreaterThanOrEqual(290);
    await sleep(100);
    expect(seen).toHaveLength(2);
  });

  it('issue 13 §1: two nodes on one database share a queue: every job runs exactly once, on one node or the other', async () => {
    const [da, db2] = await pair();
    const ranOn = new Map<number, string[]>();
    const nodesOf = [
      [da, 'node-a'],
      [db2, 'node-b'],
    ] as const;
    for (const [database, id] of nodesOf) {
      const jobs = node(database, id);
      jobs.queue<{ n: number }>({
        name: 'test.shared',
        concurrency: 3,
        async handler({ n }) {
          ranOn.set(n, [...(ranOn.get(n) ?? []), id]);
          await sleep(5);
        },
      });
    }
    await Promise.all(nodes.map((j) => j.start()));
    for (let n = 0; n < 60; n++) await nodes[n % 2]!.enqueue(nodesOf[n % 2]![0].db, 'test.shared', { n });
    await waitFor(async () => (await statusOf(nodes[0]!, 'test.shared')).done === 60, 15_000);
    expect([...ranOn.keys()].sort((x, y) => x - y)).toEqual(Array.from({ length: 60 }, (_, i) => i));
    expect([...ranOn.values()].filter((on) => on.length !== 1)).toEqual([]);
    const perNode = [...ranOn.values()].flat();
    expect(perNode.filter((id) => id === 'node-a').length).toBeGreaterThan(0);
    expect(perNode.filter((id) => id === 'node-b').length).toBeGreaterThan(0);
  });

  it('issue 13 §1: a long job keeps its lease while its node renews it; when the node stops answering, the lease lapses and another node takes the job over', async () => {
    const [da, db2] = await pair();
    const a = node(da, 'node-a');
    const b = node(db2, 'node-b');
    const started: string[] = [];
    let releaseA!: () => void;
    a.queue({
      name: 'test.lease',
      leaseMs: 150,
      handler: async (_payload, ctx) => {
        started.push(`node-a#${ctx.attempt}`);
        // Stuck: does not heed the abort either.
        await new Promise<void>((resolve) => {
          releaseA = resolve;
        });
      },
    });
    b.queue({
      name: 'test.lease',
      leaseMs: 150,
      handler: async (_payload, ctx) => {
        started.push(`node-b#${ctx.attempt}`);
      },
    });
    await a.start();
    await a.enqueue(da.db, 'test.lease', {});
    await waitFor(() => started.length === 1);
    await b.start();
    // Three leases long: node-a renews it, node-b never gets it.
    await sleep(450);
    expect(started).toEqual(['node-a#1']);
    expect(await statusOf(b, 'test.lease')).toMatchObject({ running: 1, pending: 0 });
    // node-a stops answering (its stop gives up on the stuck handler at once).
    await a.stop(10);
    await waitFor(() => started.length === 2);
    expect(started).toEqual(['node-a#1', 'node-b#2']);
    await waitFor(async () => (await statusOf(b, 'test.lease')).done === 1);
    // The stuck run ending late on the stopped node changes nothing.
    releaseA();
    await sleep(50);
    expect(await statusOf(b, 'test.lease')).toMatchObject({ done: 1, running: 0, pending: 0, dead: 0 });
  });

  it('issue 13 §1: stopping aborts a running handler; a job it gives up on goes back to the queue without using an attempt', async () => {
    const [da, db2] = await pair();
    const a = node(da, 'node-a');
    let started = false;
    a.queue({
      name: 'test.drain',
      maxAttempts: 1,
      handler: (_payload, { signal }) =>
        new Promise((_resolve, reject) => {
          started = true;
          signal.addEventListener('abort', () => reject(new Error('aborted')));
        }),
    });
    await a.start();
    await a.enqueue(da.db, 'test.drain', { x: 1 });
    await waitFor(() => started);
    await a.stop();
    expect(await statusOf(a, 'test.drain')).toMatchObject({ pending: 1, running: 0, dead: 0 });
    const attempts: number[] = [];
    const b = node(db2, 'node-b');
    b.queue({
      name: 'test.drain',
      maxAttempts: 1,
      handler: async (_payload, ctx) => {
        attempts.push(ctx.attempt);
      },
    });
    await b.start();
    await waitFor(async () => (await statusOf(b, 'test.drain')).done === 1);
    expect(attempts).toEqual([1]);
  });
});
