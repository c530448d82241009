import pino from 'pino';
import { afterEach, beforeEach, describe, expect, it } from 'vitest';
import { createTestApp, createTestDatabase, type TestApp } from '../../testing/index.ts';
import type { Database } from '../db/index.ts';
import { JobBusyError, Jobs, UnknownJobError } from './index.ts';

const silent = pino({ level: 'silent' });
const waitFor = async (check: () => boolean, timeoutMs = 5_000) => {
  const end = Date.now() + timeoutMs;
  while (!check()) {
    if (Date.now() > end) throw new Error('timed out waiting');
    await new Promise((r) => setTimeout(r, 20));
  }
};

describe('platform/jobs', () => {
  let database: Database;
  const started: Jobs[] = [];
  beforeEach(async () => {
    database = await createTestDatabase();
  });
  afterEach(async () => {
    for (const jobs of started.splice(0)) await jobs.stop();
    await database.close();
  });
  const node = (id: string) => {
    const jobs = new Jobs(database.db, id, silent);
    started.push(jobs);
    return jobs;
  };

  it('a cluster job runs on one node at a time: two nodes due together run it once per interval', async () => {
    let runs = 0;
    let concurrent = 0;
    let maxConcurrent = 0;
    for (const id of ['node-a', 'node-b']) {
      node(id).recurring({
        name: 'test.cluster',
        scope: 'cluster',
        intervalMs: 150,
        async run() {
          runs += 1;
          concurrent += 1;
          maxConcurrent = Math.max(maxConcurrent, concurrent);
          await new Promise((r) => setTimeout(r, 100));
          concurrent -= 1;
          return { runs };
        },
      });
    }
    await Promise.all(started.map((j) => j.start()));
    await new Promise((r) => setTimeout(r, 1_000));
    for (const jobs of started) await jobs.stop();
    expect(maxConcurrent).toBe(1);
    // ~1,000 ms / 150 ms per interval: never the 2× two independent nodes would make.
    expect(runs).toBeGreaterThanOrEqual(2);
    expect(runs).toBeLessThanOrEqual(7);
    const [status] = await started[0]!.status();
    expect(status).toMatchObject({ name: 'test.cluster', scope: 'cluster', failures: 0, lastError: null });
    expect(status!.runs).toBe(runs);
    expect(status!.lastResult).toEqual({ runs });
  });

  it('runNow answers the result, stores it as the last result seen by every node, and refuses a second run while one runs', async () => {
    let release!: () => void;
    const a = node('node-a');
    const b = node('node-b');
    for (const jobs of [a, b])
      jobs.recurring({
        name: 'test.scrub',
        scope: 'cluster',
        intervalMs: 3_600_000,
        run: () =>
          new Promise((resolve) => {
            release = () => resolve({ checked: 3 });
          }),
      });
    await a.start();
    await b.start();
    const first = a.runNow('test.scrub');
    await waitFor(() => release !== undefined);
    await expect(b.runNow('test.scrub')).rejects.toBeInstanceOf(JobBusyError);
    await expect(a.runNow('test.scrub')).rejects.toBeInstanceOf(JobBusyError);
    release();
    expect(await first).toEqual({ checked: 3 });
    const [seenByB] = await b.status();
    expect(seenByB).toMatchObject({
      running: false,
      runs: 1,
      lastNode: 'node-a',
      lastResult: { checked: 3 },
    });
    expect(new Date(seenByB!.nextRunAt!).getTime()).toBeGreaterThan(Date.now() + 3_000_000);
    await expect(a.runNow('nope')).rejects.toBeInstanceOf(UnknownJobError);
  });

  it('a failing job records its error and failure count; a later success clears them', async () => {
    let fail = true;
    const jobs = node('node-a');
    jobs.recurring({
      name: 'test.flaky',
      scope: 'cluster',
      intervalMs: 3_600_000,
      async run() {
        if (fail) throw new Error('disk on fire');
        return 'ok';
      },
    });
    await jobs.start();
    await expect(jobs.runNow('test.flaky')).rejects.toThrow('disk on fire');
    expect((await jobs.status())[0]).toMatchObject({
      failures: 1,
      lastError: 'disk on fire',
      running: false,
    });
    fail = false;
    expect(await jobs.runNow('test.flaky')).toBe('ok');
    expect((await jobs.status())[0]).toMatchObject({
      failures: 0,
      lastError: null,
      runs: 2,
      lastResult: 'ok',
    });
  });

  it('a node job runs on its interval on every node; stop() aborts a running job and waits for it', async () => {
    let beats = 0;
    let aborted = false;
    const jobs = node('node-a');
    jobs.recurring({
      name: 'test.beat',
      scope: 'node',
      intervalMs: 50,
      run: async () => {
        beats += 1;
      },
    });
    jobs.recurring({
      name: 'test.long',
      scope: 'node',
      intervalMs: 3_600_000,
      run: ({ signal }) =>
        new Promise<void>((resolve) =>
          signal.addEventListener('abort', () => {
            aborted = true;
            resolve();
          }),
        ),
    });
    await jobs.start();
    await waitFor(() => beats >= 3);
    const long = jobs.runNow('test.long');
    await jobs.stop();
    await long;
    expect(aborted).toBe(true);
    const after = beats;
    await new Promise((r) => setTimeout(r, 200));
    expect(beats).toBe(after);
    expect(() =>
      jobs.recurring({ name: 'test.beat', scope: 'node', intervalMs: 1, run: async () => {} }),
    ).toThrow(/duplicate/);
  });
});

describe('GET /api/system/jobs, POST /api/system/jobs/{name}/run', () => {
  let t: TestApp;
  beforeEach(async () => {
    t = await createTestApp();
  });
  afterEach(async () => t.close());
  const admin = { authorization: `Basic ${Buffer.from('admin:Test-admin-Pa55word!').toString('base64')}` };

  it('lists the registered jobs with their schedule for an admin, and refuses anonymous callers', async () => {
    const list = await t.app.inject({ method: 'GET', url: '/api/system/jobs', headers: admin });
    expect(list.statusCode).toBe(200);
    const names = list.json().jobs.map((j: { name: string }) => j.name);
    expect(names).toContain('system.node-heartbeat');
    expect((await t.app.inject({ method: 'GET', url: '/api/system/jobs' })).statusCode).toBe(401);
    expect(
      (await t.app.inject({ method: 'POST', url: '/api/system/jobs/system.node-heartbeat/run' })).statusCode,
    ).toBe(401);
  });

  it('runs a job now and answers 404 for an unknown job', async () => {
    const run = await t.app.inject({
      method: 'POST',
      url: '/api/system/jobs/system.node-heartbeat/run',
      headers: admin,
    });
    expect(run.statusCode).toBe(200);
    expect(run.json()).toMatchObject({ name: 'system.node-heartbeat' });
    const status = (await t.app.inject({ method: 'GET', url: '/api/system/jobs', headers: admin })).json();
    expect(status.jobs.find((j: { name: string }) => j.name === 'system.node-heartbeat')).toMatchObject({
      runs: 1,
      failures: 0,
    });
    const missing = await t.app.inject({
      method: 'POST',
      url: '/api/system/jobs/no.such/run',
      headers: admin,
    });
    expect(missing.statusCode).toBe(404);
  });
});

describe('issue 13 §1: GET /api/system/jobs shows queues and subscribers; dead jobs are listed and retried', () => {
  let t: TestApp;
  beforeEach(async () => {
    t = await createTestApp();
  });
  afterEach(async () => t.close());
  const admin = { authorization: `Basic ${Buffer.from('admin:Test-admin-Pa55word!').toString('base64')}` };
  const sam = { authorization: `Basic ${Buffer.from('sam:Sam-Pa55word!x').toString('base64')}` };
  const status = async () =>
    (await t.app.inject({ method: 'GET', url: '/api/system/jobs', headers: admin })).json() as {
      jobs: { name: string }[];
      queues: { name: string; pending: number; dead: number; done: number; lastError: string | null }[];
      subscribers: { name: string; types: string[]; delivered: number; lag: number; failures: number }[];
    };
  const waitUntil = async (check: () => Promise<boolean>) => {
    const end = Date.now() + 20_000;
    while (!(await check())) {
      if (Date.now() > end) throw new Error('timed out waiting');
      await new Promise((r) => setTimeout(r, 50));
    }
  };

  it('issue 13 §1: an admin sees every queue and subscriber, lists a dead-lettered job and re-runs it; others are refused', async () => {
    const { jobs, database } = t.app.granary;
    let fail = true;
    jobs.queue<{ file: string }>({
      name: 'test.admin',
      maxAttempts: 1,
      handler: async () => {
        if (fail) throw new Error('receiver refused');
      },
    });
    const seen: string[] = [];
    jobs.subscribe({
      name: 'test.watch',
      types: ['artifact.*'],
      handle: async (events) => {
        seen.push(...events.map((e) => e.type));
      },
    });
    const id = await jobs.enqueue(database.db, 'test.admin', { file: 'a.txt' });
    await waitUntil(async () => (await status()).queues.some((q) => q.name === 'test.admin' && q.dead === 1));
    const deployed = await t.app.inject({
      method: 'PUT',
      url: '/repository/generic-local/watched/a.txt',
      headers: admin,
      payload: 'hello',
    });
    expect(deployed.statusCode).toBe(201);
    await waitUntil(async () => seen.includes('artifact.deployed'));

    const overview = await status();
    expect(overview.jobs.map((j) => j.name)).toEqual(
      expect.arrayContaining(['system.node-heartbeat', 'jobs.prune', 'packages.download-counts']),
    );
    expect(overview.queues).toEqual(
      expect.arrayContaining([
        { name: 'test.admin', pending: 0, running: 0, dead: 1, done: 0, lastError: 'receiver refused' },
        expect.objectContaining({ name: 'packages.archive-entries', dead: 0 }),
      ]),
    );
    const watch = overview.subscribers.find((s) => s.name === 'test.watch');
    expect(watch).toEqual(
      expect.objectContaining({ name: 'test.watch', types: ['artifact.*'], failures: 0, lastError: null }),
    );
    expect(watch!.delivered).toBeGreaterThanOrEqual(1);
    // The server's own subscribers are listed too (webhooks, issue 14).
    expect(overview.subscribers.map((s) => s.name)).toContain('webhooks.match');

    const dead = await t.app.inject({
      method: 'GET',
      url: '/api/system/jobs/queues/test.admin/dead',
      headers: admin,
    });
    expect(dead.statusCode).toBe(200);
    expect(dead.json()).toEqual({
      name: 'test.admin',
      jobs: [
        expect.objectContaining({
          id,
          attempts: 1,
          payload: { file: 'a.txt' },
          lastError: 'receiver refused',
        }),
      ],
    });
    fail = false;
    const retryUrl = `/api/system/jobs/queues/test.admin/dead/${id}/retry`;
    const retried = await t.app.inject({ method: 'POST', url: retryUrl, headers: admin });
    expect(retried.statusCode).toBe(200);
    expect(retried.json()).toEqual({ name: 'test.admin', id });
    await waitUntil(async () => (await status()).queues.some((q) => q.name === 'test.admin' && q.done === 1));
    expect((await t.app.inject({ method: 'POST', url: retryUrl, headers: admin })).statusCode).toBe(404);

    await t.app.inject({
      method: 'PUT',
      url: '/api/security/users/sam',
      headers: admin,
      payload: { password: 'Sam-Pa55word!x' },
    });
    for (const [method, url] of [
      ['GET', '/api/system/jobs'],
      ['GET', '/api/system/jobs/queues/test.admin/dead'],
      ['POST', retryUrl],
    ] as const) {
      expect((await t.app.inject({ method, url })).statusCode, `${method} ${url}`).toBe(401);
      expect((await t.app.inject({ method, url, headers: sam })).statusCode, `${method} ${url}`).toBe(403);
    }
  });
});
