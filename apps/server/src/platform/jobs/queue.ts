import { and, desc, eq, sql } from 'drizzle-orm';
import type { Logger } from 'pino';
import { CoalescedRun } from '../concurrency/coalesced-run.ts';
import { type Db, queryRows } from '../db/index.ts';
import type { Executor } from '../events/index.ts';
import { jobQueue } from './jobs.schema.ts';

/** The NOTIFY channel an enqueue wakes the workers on (payload: the queue's name), on every node. */
export const JOBS_CHANNEL = 'granary_jobs';

export interface QueuedJobContext {
  /** Aborted when the server shuts down: the handler stops at its next check (the job is run again later). */
  signal: AbortSignal;
  log: Logger;
  jobId: number;
  /** 1 for the first run. */
  attempt: number;
}

export interface QueuedJob<P = unknown> {
  /** Unique, e.g. `packages.archive-entries`; shown in the admin endpoint. */
  name: string;
  /** Runs one job; a throw is a failed attempt. Must tolerate running twice (at least once). */
  handler(payload: P, ctx: QueuedJobContext): Promise<void>;
  /** Runs before a job is dead-lettered (default 5). */
  maxAttempts?: number;
  /** The wait after the first failure, doubled after each next one, at most an hour (default 1 s). */
  backoffMs?: number;
  /** Jobs of this queue run at once on each node (default 1). */
  concurrency?: number;
  /**
   * How long a claimed job stays this node's without a word from it (the lease is renewed while the
   * handler runs); past it, another node takes the job over. Default 5 minutes.
   */
  leaseMs?: number;
}

export interface EnqueueOptions {
  /** Not before this time (default: at once). */
  runAt?: Date;
  /** While a job with this key waits in the queue, unstarted, enqueueing another is a no-op. */
  dedupeKey?: string;
}

export interface QueueStatus {
  name: string;
  pending: number;
  running: number;
  dead: number;
  done: number;
  /** The newest error of a job still retrying or dead-lettered. */
  lastError: string | null;
}

export interface DeadJob {
  id: number;
  payload: unknown;
  attempts: number;
  lastError: string | null;
  createdAt: string;
  finishedAt: string | null;
}

const MAX_BACKOFF_MS = 3_600_000;

/**
 * Thrown by a handler whose attempt failed and whose next try should wait exactly `delayMs` (a
 * receiver's `Retry-After`, a schedule of the job's own) instead of the queue's back-off. The job is
 * still dead-lettered after the queue's last attempt.
 */
export class RetryLaterError extends Error {
  override readonly name = 'RetryLaterError';
  constructor(
    message: string,
    readonly delayMs: number,
  ) {
    super(message);
  }
}
const ms = (n: number) => sql`${`${Math.max(0, Math.round(n))} milliseconds`}::interval`;

/**
 * Puts a job in a queue. Call it with the transaction that makes the change the job follows up
 * (`db.transaction(async (tx) => { …; await enqueueJob(tx, …) })`): the job exists only if the change
 * commits, and the workers of every node are woken when it does. Answers the job's id, or null when
 * `dedupeKey` found one waiting already.
 */
export async function enqueueJob(
  tx: Executor,
  name: string,
  payload: unknown,
  opts: EnqueueOptions = {},
): Promise<number | null> {
  const [row] = await tx
    .insert(jobQueue)
    .values({
      queue: name,
      payload: (payload ?? null) as object,
      dedupeKey: opts.dedupeKey ?? null,
      ...(opts.runAt ? { runAt: opts.runAt } : {}),
    })
    .onConflictDoNothing()
    .returning({ id: jobQueue.id });
  if (!row) return null;
  await tx.execute(sql`select pg_notify(${JOBS_CHANNEL}, ${name})`);
  return row.id;
}

/**
 * Queues many jobs of one queue in one statement (and one wake-up): e.g. the deliveries an event
 * batch matched. Payloads with a `dedupeKey` already queued are skipped; answers how many were queued.
 */
export async function enqueueJobs(
  tx: Executor,
  name: string,
  payloads: readonly unknown[],
  opts: Omit<EnqueueOptions, 'dedupeKey'> = {},
): Promise<number> {
  if (payloads.length === 0) return 0;
  const rows = await tx
    .insert(jobQueue)
    .values(
      payloads.map((payload) => ({
        queue: name,
        payload: (payload ?? null) as object,
        ...(opts.runAt ? { runAt: opts.runAt } : {}),
      })),
    )
    .returning({ id: jobQueue.id });
  await tx.execute(sql`select pg_notify(${JOBS_CHANNEL}, ${name})`);
  return rows.length;
}

interface Claimed {
  id: number;
  payload: unknown;
  attempts: number;
}

interface WorkerDeps {
  db: Db;
  nodeId: string;
  log: Logger;
  signal: AbortSignal;
  /** False once the jobs are stopping: nothing new is claimed. */
  running(): boolean;
  /** True once stop() has returned: a late handler writes nothing (the database may be closed). */
  closed(): boolean;
}

/** One queue's workers on this node: claims due jobs up to its concurrency, runs, records the outcome. */
export class QueueWorker {
  readonly maxAttempts: number;
  readonly backoffMs: number;
  readonly concurrency: number;
  readonly leaseMs: number;
  private readonly active = new Map<number, Promise<void>>();
  private readonly poller = new CoalescedRun(
    () => this.drain(),
    (err) => {
      if (!this.deps.closed()) this.deps.log.warn({ err, queue: this.def.name }, 'job queue poll failed');
    },
    () => this.deps.running(),
  );

  constructor(
    readonly def: QueuedJob,
    private readonly deps: WorkerDeps,
  ) {
    this.maxAttempts = Math.max(1, def.maxAttempts ?? 5);
    this.backoffMs = def.backoffMs ?? 1_000;
    this.concurrency = Math.max(1, def.concurrency ?? 1);
    this.leaseMs = def.leaseMs ?? 300_000;
  }

  /** Runs due jobs until the queue is empty or every slot is busy; a call during a poll polls once more after it. */
  poll(): Promise<void> {
    return this.poller.run();
  }

  /** Everything this worker has in flight (polls and handlers), for stop() to wait on. */
  inFlight(): Promise<unknown>[] {
    return [...this.active.values(), ...(this.poller.inProgress ? [this.poller.inProgress] : [])];
  }

  /** Extends the lease of the jobs running here: only a node that stopped answering loses its jobs. */
  async renew(): Promise<void> {
    if (this.active.size === 0) return;
    await this.deps.db
      .update(jobQueue)
      .set({ lockedUntil: sql`now() + ${ms(this.leaseMs)}` })
      .where(
        sql`${jobQueue.id} in (${sql.join(
          [...this.active.keys()].map((id) => sql`${id}`),
          sql`, `,
        )}) and ${jobQueue.lockedBy} = ${this.deps.nodeId} and ${jobQueue.status} = 'running'`,
      );
  }

  private async drain(): Promise<void> {
    while (this.deps.running() && this.active.size < this.concurrency) {
      const claimed = await this.claim(this.concurrency - this.active.size);
      if (claimed.length === 0) return;
      if (!this.deps.running()) {
        await this.release(claimed);
        return;
      }
      for (const job of claimed) {
        const run = this.run(job).finally(() => {
          this.active.delete(job.id);
          if (this.deps.running()) void this.poll();
        });
        this.active.set(job.id, run);
      }
    }
  }

  /** Takes up to `limit` due jobs: pending ones whose time came, and running ones whose node's lease lapsed. */
  private async claim(limit: number): Promise<Claimed[]> {
    const { db, nodeId } = this.deps;
    const rows = await queryRows<{ id: string | number; payload: unknown; attempts: number }>(
      db,
      sql`update ${jobQueue} set
            status = 'running',
            attempts = ${jobQueue.attempts} + 1,
            locked_by = ${nodeId},
            locked_until = now() + ${ms(this.leaseMs)},
            updated_at = now(),
            last_error = case when ${jobQueue.status} = 'running'
              then 'the run on ' || coalesce(${jobQueue.lockedBy}, 'a node') || ' did not finish before its lease lapsed'
              else ${jobQueue.lastError} end
          where ${jobQueue.id} in (
            select id from ${jobQueue}
            where queue = ${this.def.name}
              and ((status = 'pending' and run_at <= now()) or (status = 'running' and locked_until < now()))
            order by run_at, id
            limit ${limit}
            for update skip locked)
          returning ${jobQueue.id}, ${jobQueue.payload}, ${jobQueue.attempts}`,
    );
    return rows
      .map((r) => ({ id: Number(r.id), payload: r.payload, attempts: r.attempts }))
      .sort((a, b) => a.id - b.id);
  }

  private async run(job: Claimed): Promise<void> {
    const { name } = this.def;
    const log = this.deps.log.child({ queue: name, jobId: job.id, attempt: job.attempts });
    if (job.attempts > this.maxAttempts) {
      // Every run so far was lost with its node: the job is not tried again on its own.
      await this.record(job, { status: 'dead' }, log);
      return;
    }
    try {
      await this.def.handler(job.payload, {
        signal: this.deps.signal,
        log,
        jobId: job.id,
        attempt: job.attempts,
      });
    } catch (err) {
      if (this.deps.signal.aborted) {
        await this.release([job]);
        return;
      }
      const message = err instanceof Error ? err.message : String(err);
      const dead = job.attempts >= this.maxAttempts;
      if (dead) log.error({ err }, 'queued job failed for the last time: dead-lettered');
      else log.warn({ err }, 'queued job failed: retried later');
      const delay =
        err instanceof RetryLaterError
          ? Math.max(0, err.delayMs)
          : Math.min(this.backoffMs * 2 ** (job.attempts - 1), MAX_BACKOFF_MS);
      await this.record(
        job,
        dead ? { status: 'dead', error: message } : { status: 'pending', error: message, delayMs: delay },
        log,
      );
      return;
    }
    await this.record(job, { status: 'done' }, log);
  }

  /** Writes a run's outcome, only if the job is still this run's (a lapsed lease may have passed it on). */
  private async record(
    job: Claimed,
    outcome: { status: 'done' | 'dead' | 'pending'; error?: string; delayMs?: number },
    log: Logger,
  ): Promise<void> {
    if (this.deps.closed()) return;
    const finished = outcome.status !== 'pending';
    try {
      await this.deps.db
        .update(jobQueue)
        .set({
          status: outcome.status,
          lockedBy: null,
          lockedUntil: null,
          updatedAt: sql`now()`,
          finishedAt: finished ? sql`now()` : null,
          ...(outcome.status === 'done' ? { lastError: null } : {}),
          ...(outcome.error !== undefined ? { lastError: outcome.error } : {}),
          ...(outcome.delayMs !== undefined ? { runAt: sql`now() + ${ms(outcome.delayMs)}` } : {}),
        })
        .where(
          and(
            eq(jobQueue.id, job.id),
            eq(jobQueue.lockedBy, this.deps.nodeId),
            eq(jobQueue.attempts, job.attempts),
          ),
        );
    } catch (err) {
      if (!this.deps.closed())
        log.warn({ err }, 'could not record a queued job’s outcome (its lease will lapse)');
    }
  }

  /** Hands jobs back untouched (the server is stopping): another node, or this one after a restart, runs them. */
  private async release(jobs: Claimed[]): Promise<void> {
    if (jobs.length === 0 || this.deps.closed()) return;
    try {
      await this.deps.db
        .update(jobQueue)
        .set({
          status: 'pending',
          attempts: sql`greatest(${jobQueue.attempts} - 1, 0)`,
          lockedBy: null,
          lockedUntil: null,
          runAt: sql`now()`,
          updatedAt: sql`now()`,
        })
        .where(
          sql`${jobQueue.id} in (${sql.join(
            jobs.map((j) => sql`${j.id}`),
            sql`, `,
          )}) and ${jobQueue.lockedBy} = ${this.deps.nodeId} and ${jobQueue.status} = 'running'`,
        );
    } catch (err) {
      if (!this.deps.closed()) this.deps.log.warn({ err, queue: this.def.name }, 'could not hand jobs back');
    }
  }
}

/** Jobs per status and the newest error, for each queue named (and any other found in the table). */
export async function queueStatus(db: Db, names: string[]): Promise<QueueStatus[]> {
  const counts = await queryRows<{ queue: string; status: string; n: string | number }>(
    db,
    sql`select queue, status, count(*) as n from ${jobQueue} group by queue, status`,
  );
  const errors = await queryRows<{ queue: string; last_error: string }>(
    db,
    sql`select distinct on (queue) queue, last_error from ${jobQueue}
        where last_error is not null and status <> 'done'
        order by queue, updated_at desc`,
  );
  const byName = new Map<string, QueueStatus>();
  const of = (name: string) => {
    let s = byName.get(name);
    if (!s) {
      s = { name, pending: 0, running: 0, dead: 0, done: 0, lastError: null };
      byName.set(name, s);
    }
    return s;
  };
  for (const name of names) of(name);
  for (const c of counts) {
    const s = of(c.queue);
    if (c.status === 'pending' || c.status === 'running' || c.status === 'dead' || c.status === 'done')
      s[c.status] = Number(c.n);
  }
  for (const e of errors) of(e.queue).lastError = e.last_error;
  return [...byName.values()].sort((a, b) => a.name.localeCompare(b.name));
}

/**
 * How long the oldest due job has waited (ms since its `run_at`, by the database's clock), across all
 * queues, and which queue it is in; 0 and null when none is due. The health detail's job lag.
 */
export async function oldestDueJob(db: Db): Promise<{ ageMs: number; queue: string | null }> {
  const [row] = await queryRows<{ queue: string; age_ms: string | number }>(
    db,
    sql`select queue, extract(epoch from (now() - run_at)) * 1000 as age_ms from ${jobQueue}
        where status = 'pending' and run_at <= now() order by run_at limit 1`,
  );
  return row
    ? { ageMs: Math.max(0, Math.round(Number(row.age_ms))), queue: row.queue }
    : { ageMs: 0, queue: null };
}

/** The dead-lettered jobs of a queue, newest first (at most `limit`). */
export async function deadJobs(db: Db, name: string, limit = 100): Promise<DeadJob[]> {
  const rows = await db
    .select()
    .from(jobQueue)
    .where(and(eq(jobQueue.queue, name), eq(jobQueue.status, 'dead')))
    .orderBy(desc(jobQueue.id))
    .limit(limit);
  return rows.map((r) => ({
    id: r.id,
    payload: r.payload,
    attempts: r.attempts,
    lastError: r.lastError,
    createdAt: r.createdAt.toISOString(),
    finishedAt: r.finishedAt ? r.finishedAt.toISOString() : null,
  }));
}

const isUniqueViolation = (err: unknown): boolean => {
  for (let e = err, depth = 0; e instanceof Error && depth < 5; e = e.cause, depth += 1)
    if ((e as { code?: unknown }).code === '23505') return true;
  return false;
};

/**
 * Puts a dead-lettered job back in its queue with all its attempts again, to run at once. Answers
 * the job that will run (this one, or a fresh duplicate already waiting with the same key, which
 * then stands for it), or null when the queue has no such dead job.
 */
export async function retryDeadJob(db: Db, name: string, id: number): Promise<number | null> {
  const where = and(eq(jobQueue.id, id), eq(jobQueue.queue, name), eq(jobQueue.status, 'dead'));
  const revive = () =>
    db
      .update(jobQueue)
      .set({
        status: 'pending',
        attempts: 0,
        runAt: sql`now()`,
        finishedAt: null,
        lockedBy: null,
        lockedUntil: null,
        updatedAt: sql`now()`,
      })
      .where(where)
      .returning({ id: jobQueue.id });
  try {
    const [row] = await revive();
    if (!row) return null;
    await db.execute(sql`select pg_notify(${JOBS_CHANNEL}, ${name})`);
    return row.id;
  } catch (err) {
    if (!isUniqueViolation(err)) throw err;
    // The same work already waits under the same key: that job does it; this one goes.
    const [dead] = await db.delete(jobQueue).where(where).returning({ dedupeKey: jobQueue.dedupeKey });
    if (!dead) return null;
    const [waiting] = await db
      .select({ id: jobQueue.id })
      .from(jobQueue)
      .where(
        sql`${jobQueue.queue} = ${name} and ${jobQueue.dedupeKey} = ${dead.dedupeKey} and ${jobQueue.status} = 'pending' and ${jobQueue.attempts} = 0`,
      );
    return waiting?.id ?? null;
  }
}

/** Deletes up to `limit` jobs done longer ago than `olderThanMs`; answers how many. */
export async function pruneDoneJobs(db: Db, olderThanMs: number, limit: number): Promise<number> {
  const rows = await queryRows<{ id: number }>(
    db,
    sql`delete from ${jobQueue} where ${jobQueue.id} in (
          select id from ${jobQueue} where status = 'done' and finished_at < now() - ${ms(olderThanMs)} limit ${limit})
        returning ${jobQueue.id}`,
  );
  return rows.length;
}
