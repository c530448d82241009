import { eq, sql } from 'drizzle-orm';
import type { Logger } from 'pino';
import { type Db, type NotifyChannel, queryRows } from '../db/index.ts';
import { outboxEvents } from '../events/events.schema.ts';
import type { Executor } from '../events/index.ts';
import { jobQueue, jobSchedules, outboxSubscriptions } from './jobs.schema.ts';
import {
  type DeadJob,
  deadJobs,
  type EnqueueOptions,
  enqueueJob,
  JOBS_CHANNEL,
  oldestDueJob,
  type QueuedJob,
  type QueueStatus,
  QueueWorker,
  queueStatus,
  retryDeadJob,
} from './queue.ts';
import { type Subscriber, type SubscriberStatus, SubscriberWorker, subscriberStatus } from './subscribers.ts';

/**
 * How a recurring job is shared between nodes:
 * - `cluster`: one run per interval across every node sharing the database, one node at a time
 *   (the schedule and a lease live in `job_schedules`); for work on shared data (scrubs, GC, cleanup).
 * - `node`: every node runs its own copy (a node's heartbeat, flushing its own in-memory counters).
 */
export type JobScope = 'cluster' | 'node';

export interface JobRunContext {
  /** Aborted when the server shuts down: a long job stops at its next check. */
  signal: AbortSignal;
  log: Logger;
}

export interface RecurringJob {
  /** Unique, e.g. `blobs.scrub`; shown in the admin endpoint. */
  name: string;
  intervalMs: number;
  /** A random delay up to this added to each next run, so nodes started together do not beat together. */
  jitterMs?: number;
  scope: JobScope;
  /**
   * How long a claimed `cluster` run may take before another node may take it over (a node that
   * died mid-run leaves a lease that lapses). Default: the interval, at least 10 minutes.
   */
  leaseMs?: number;
  /** Runs once; what it returns (JSON) is kept as the job's last result. */
  run(ctx: JobRunContext): Promise<unknown>;
}

export interface JobStatus {
  name: string;
  scope: JobScope;
  intervalMs: number;
  running: boolean;
  nextRunAt: string | null;
  lastStartedAt: string | null;
  lastFinishedAt: string | null;
  lastNode: string | null;
  lastResult: unknown;
  lastError: string | null;
  runs: number;
  failures: number;
}

/** A run asked for while the job is running (here or, for a cluster job, on another node). */
export class JobBusyError extends Error {
  constructor(readonly job: string) {
    super(`Job ${job} is running`);
  }
}
export class UnknownJobError extends Error {
  constructor(readonly job: string) {
    super(`No job named ${job}`);
  }
}

interface Entry {
  job: RecurringJob;
  timer?: NodeJS.Timeout;
  running?: Promise<unknown>;
  /** A tick in progress (claiming the lease, then running): `stop()` waits for it. */
  ticking?: Promise<void>;
  /** For `node` jobs, whose state is this node's own. */
  local: Omit<JobStatus, 'name' | 'scope' | 'intervalMs' | 'running'>;
}

export interface JobsOptions {
  /** LISTEN/NOTIFY between nodes: an enqueue wakes every node's workers at once when it commits. */
  channel?: NotifyChannel;
  /**
   * How often this node's workers look for due queued jobs and outbox events, and renew the leases
   * of what they run (default 1 s). Enqueues on a channel wake them sooner.
   */
  pollMs?: number;
}

/** Where a failing job's next try lands: the interval, but no later than a minute after a failure. */
const RETRY_AFTER_FAILURE_MS = 60_000;
/** How often a node looks whether a cluster job is due (its own timer wakes it at the earliest). */
const MAX_POLL_MS = 30_000;

/**
 * The one way to run background work (DESIGN.md "Events and jobs"): recurring jobs, queued jobs
 * and outbox subscribers. They are registered at boot, started once the server is ready, aborted
 * and awaited when it closes. Nothing else in the server runs a timer loop.
 */
export class Jobs {
  private readonly entries = new Map<string, Entry>();
  private readonly queues = new Map<string, QueueWorker>();
  private readonly subscribers = new Map<string, SubscriberWorker>();
  private readonly abort = new AbortController();
  private readonly pollMs: number;
  private started = false;
  private closed = false;
  private pollTimer: NodeJS.Timeout | undefined;
  private ticking: Promise<void> | undefined;
  private unlisten: (() => Promise<void>) | undefined;

  constructor(
    private readonly db: Db,
    private readonly nodeId: string,
    private readonly log: Logger,
    private readonly opts: JobsOptions = {},
  ) {
    this.pollMs = opts.pollMs ?? 1_000;
  }

  private workerDeps() {
    return {
      db: this.db,
      nodeId: this.nodeId,
      log: this.log,
      signal: this.abort.signal,
      running: () => this.started,
      closed: () => this.closed,
    };
  }

  /**
   * A queue of jobs (`enqueue`) run by `handler` on whichever node claims them first: retried with
   * exponential back-off, dead-lettered with the error after `maxAttempts`.
   */
  queue<P>(def: QueuedJob<P>): void {
    if (this.queues.has(def.name)) throw new Error(`duplicate job queue ${def.name}`);
    const worker = new QueueWorker(def as QueuedJob, this.workerDeps());
    this.queues.set(def.name, worker);
    if (this.started) void worker.poll();
  }

  /**
   * Puts a job in queue `name` (registered on this node), in the caller's transaction when given one
   * (see `enqueueJob`). Answers the job's id, or null when `dedupeKey` found one waiting already.
   */
  enqueue<P>(tx: Executor, name: string, payload: P, opts: EnqueueOptions = {}): Promise<number | null> {
    if (!this.queues.has(name)) throw new Error(`No job queue named ${name}`);
    return enqueueJob(tx, name, payload, opts);
  }

  /**
   * An outbox subscriber: every event of its types, delivered at least once, in commit order, by one
   * node at a time; its position is stored, so it goes on after a restart where it stopped.
   */
  subscribe(def: Subscriber): void {
    if (this.subscribers.has(def.name)) throw new Error(`duplicate outbox subscriber ${def.name}`);
    if (def.types.length === 0) throw new Error(`outbox subscriber ${def.name}: no event types`);
    const worker = new SubscriberWorker(def, this.workerDeps());
    this.subscribers.set(def.name, worker);
    if (this.started) void worker.poll();
  }

  recurring(job: RecurringJob): void {
    if (this.entries.has(job.name)) throw new Error(`duplicate job ${job.name}`);
    if (!(job.intervalMs > 0)) throw new Error(`job ${job.name}: interval must be positive`);
    this.entries.set(job.name, {
      job,
      local: {
        nextRunAt: null,
        lastStartedAt: null,
        lastFinishedAt: null,
        lastNode: null,
        lastResult: null,
        lastError: null,
        runs: 0,
        failures: 0,
      },
    });
    if (this.started) void this.startOne(this.entries.get(job.name)!);
  }

  async start(): Promise<void> {
    if (this.started) return;
    this.started = true;
    for (const entry of this.entries.values()) await this.startOne(entry);
    for (const worker of this.subscribers.values()) await worker.ensure();
    if (this.opts.channel)
      this.unlisten = await this.opts.channel.listen(
        JOBS_CHANNEL,
        (name) => void this.queues.get(name)?.poll(),
        () => this.poll(),
      );
    this.poll();
  }

  /**
   * The queues that have a job to claim now (pending and due, or running past its lease) and the
   * subscribers with committed events past their position, free and not backing off: one statement.
   */
  private async dueWork(): Promise<{ queues: Set<string>; subscribers: Set<string> }> {
    const queues = new Set<string>();
    const subscribers = new Set<string>();
    if (this.queues.size === 0 && this.subscribers.size === 0) return { queues, subscribers };
    const list = (names: Iterable<string>) =>
      sql.join(
        [...names].map((n) => sql`${n}`),
        sql`, `,
      );
    const parts = [];
    if (this.queues.size > 0)
      parts.push(sql`select distinct 'queue' as kind, queue as name from ${jobQueue}
          where status in ('pending', 'running')
            and ((status = 'pending' and run_at <= now()) or (status = 'running' and locked_until < now()))`);
    if (this.subscribers.size > 0)
      parts.push(sql`select 'subscriber' as kind, s.name from ${outboxSubscriptions} s
          where s.name in (${list(this.subscribers.keys())})
            and (s.locked_until is null or s.locked_until < now()) and (s.retry_at is null or s.retry_at <= now())
            and exists (select 1 from ${outboxEvents} e
              where (e.xid, e.id) > (s.cursor_xid, s.cursor_id) and e.xid < pg_snapshot_xmin(pg_current_snapshot()))`);
    const rows = await queryRows<{ kind: string; name: string }>(this.db, sql.join(parts, sql` union all `));
    for (const { kind, name } of rows) (kind === 'queue' ? queues : subscribers).add(name);
    return { queues, subscribers };
  }

  /** This node's worker tick: renews the leases of what runs here, then looks for due jobs and events. */
  private poll(): void {
    if (!this.started || this.ticking) return;
    clearTimeout(this.pollTimer);
    this.ticking = (async () => {
      const workers = [...this.queues.values(), ...this.subscribers.values()];
      for (const worker of workers)
        await worker.renew().catch((err) => {
          if (!this.closed) this.log.warn({ err }, 'could not renew a job lease');
        });
      // One statement finds the queues and subscribers with due work; only they are polled. Polling
      // each of them every tick cost statements per queue and subscriber: embedded, 20-80 ms of the
      // event loop every second at idle, which every request felt (issues 21 and 24).
      const due = await this.dueWork().catch((err) => {
        if (!this.closed) this.log.warn({ err }, 'could not look for due jobs');
        return null;
      });
      for (const [name, worker] of this.queues) if (!due || due.queues.has(name)) void worker.poll();
      for (const [name, worker] of this.subscribers)
        if (!due || due.subscribers.has(name)) void worker.poll();
    })().finally(() => {
      this.ticking = undefined;
      if (!this.started) return;
      this.pollTimer = setTimeout(() => this.poll(), this.pollMs);
      this.pollTimer.unref();
    });
  }

  /**
   * Stops scheduling and claiming, aborts running jobs and handlers and waits for them (at most
   * `timeoutMs`). A queued job whose handler gives up on the abort goes back to its queue; one still
   * running past the wait keeps its lease until it lapses, and another node takes it over.
   */
  async stop(timeoutMs = 10_000): Promise<void> {
    const wasStarted = this.started;
    this.started = false;
    clearTimeout(this.pollTimer);
    this.abort.abort();
    if (this.unlisten) await this.unlisten().catch(() => {});
    this.unlisten = undefined;
    const running: Promise<unknown>[] = this.ticking ? [this.ticking] : [];
    for (const entry of this.entries.values()) {
      clearTimeout(entry.timer);
      if (entry.running) running.push(entry.running.catch(() => {}));
      if (entry.ticking) running.push(entry.ticking);
    }
    for (const worker of [...this.queues.values(), ...this.subscribers.values()])
      running.push(...worker.inFlight().map((p) => p.catch(() => {})));
    if (running.length > 0) {
      let timer: NodeJS.Timeout | undefined;
      await Promise.race([
        Promise.all(running),
        new Promise((resolve) => {
          timer = setTimeout(resolve, timeoutMs);
        }),
      ]);
      clearTimeout(timer);
    }
    if (wasStarted) this.closed = true;
  }

  /**
   * Runs a job now on this node and answers its result (the admin endpoint's "run now"). A cluster
   * job is claimed first, so it never runs twice at once across nodes; its schedule moves on.
   */
  async runNow(name: string): Promise<unknown> {
    const entry = this.entries.get(name);
    if (!entry) throw new UnknownJobError(name);
    if (entry.running) throw new JobBusyError(name);
    if (entry.job.scope === 'cluster' && !(await this.claim(entry.job, true))) throw new JobBusyError(name);
    return this.execute(entry);
  }

  /** Each queue's jobs per status and newest error. */
  queueStatus(): Promise<QueueStatus[]> {
    return queueStatus(this.db, [...this.queues.keys()]);
  }

  /** The oldest due queued job's wait (the health detail's job lag). */
  oldestDueJob(): Promise<{ ageMs: number; queue: string | null }> {
    return oldestDueJob(this.db);
  }

  /** Each subscriber's position, lag and failures. */
  subscriberStatus(): Promise<SubscriberStatus[]> {
    return subscriberStatus(
      this.db,
      [...this.subscribers.values()].map((w) => w.def),
    );
  }

  /** The dead-lettered jobs of a queue, newest first. */
  deadJobs(queue: string, limit?: number): Promise<DeadJob[]> {
    return deadJobs(this.db, queue, limit);
  }

  /** Puts a dead-lettered job back to run now, with all its attempts (see `retryDeadJob`); null: no such dead job. */
  retryDead(queue: string, id: number): Promise<number | null> {
    return retryDeadJob(this.db, queue, id);
  }

  async status(): Promise<JobStatus[]> {
    const rows = await this.db.select().from(jobSchedules);
    const byName = new Map(rows.map((r) => [r.name, r]));
    const iso = (d: Date | null | undefined) => (d ? d.toISOString() : null);
    return [...this.entries.values()]
      .map(({ job, running, local }) => {
        const base = { name: job.name, scope: job.scope, intervalMs: job.intervalMs };
        const row = byName.get(job.name);
        if (job.scope === 'node' || !row) return { ...base, running: Boolean(running), ...local };
        return {
          ...base,
          running: Boolean(running) || Boolean(row.leaseUntil && row.leaseUntil.getTime() > Date.now()),
          nextRunAt: iso(row.nextRunAt),
          lastStartedAt: iso(row.lastStartedAt),
          lastFinishedAt: iso(row.lastFinishedAt),
          lastNode: row.lastNode,
          lastResult: row.lastResult ?? null,
          lastError: row.lastError,
          runs: row.runs,
          failures: row.failures,
        };
      })
      .sort((a, b) => a.name.localeCompare(b.name));
  }

  private async startOne(entry: Entry): Promise<void> {
    const { job } = entry;
    if (job.scope === 'cluster') {
      // The first node to know the job schedules its first run one interval from now.
      await this.db
        .insert(jobSchedules)
        .values({
          name: job.name,
          nextRunAt: sql`now() + ${`${job.intervalMs + this.jitter(job)} milliseconds`}::interval`,
        })
        .onConflictDoNothing();
      this.schedule(entry, Math.min(job.intervalMs, MAX_POLL_MS));
    } else {
      this.schedule(entry, job.intervalMs + this.jitter(job));
    }
  }

  private jitter(job: RecurringJob): number {
    return job.jitterMs ? Math.floor(Math.random() * job.jitterMs) : 0;
  }

  private schedule(entry: Entry, delayMs: number): void {
    if (!this.started) return;
    clearTimeout(entry.timer);
    entry.local.nextRunAt = new Date(Date.now() + delayMs).toISOString();
    entry.timer = setTimeout(() => {
      entry.ticking = this.tick(entry).finally(() => {
        entry.ticking = undefined;
      });
    }, delayMs);
    entry.timer.unref();
  }

  private async tick(entry: Entry): Promise<void> {
    const { job } = entry;
    let failed = false;
    try {
      if (entry.running) return;
      const claimed = job.scope === 'node' || (await this.claim(job, false));
      // Stopping while the lease was being claimed: no run starts after stop() (it waits for this).
      if (claimed && !this.started) {
        if (job.scope === 'cluster') await this.release(job);
        return;
      }
      if (claimed) await this.execute(entry);
    } catch (err) {
      failed = true;
      if (!this.abort.signal.aborted) this.log.warn({ err, job: job.name }, 'job tick failed');
    } finally {
      const next =
        job.scope === 'cluster'
          ? Math.min(job.intervalMs, MAX_POLL_MS)
          : failed || entry.local.failures > 0
            ? Math.min(job.intervalMs, RETRY_AFTER_FAILURE_MS)
            : job.intervalMs + this.jitter(job);
      this.schedule(entry, next);
    }
  }

  /** Gives back a lease this node claimed but did not use. */
  private async release(job: RecurringJob): Promise<void> {
    await this.db
      .update(jobSchedules)
      .set({ leaseUntil: null, leaseOwner: null })
      .where(sql`${jobSchedules.name} = ${job.name} and ${jobSchedules.leaseOwner} = ${this.nodeId}`)
      .catch(() => {});
  }

  /** Takes the cluster-wide lease of a due job (or of any job not running, when `force`). */
  private async claim(job: RecurringJob, force: boolean): Promise<boolean> {
    const leaseMs = job.leaseMs ?? Math.max(job.intervalMs, 600_000);
    const interval = (ms: number) => sql`${`${ms} milliseconds`}::interval`;
    await this.db
      .insert(jobSchedules)
      .values({ name: job.name, nextRunAt: sql`now()` })
      .onConflictDoNothing();
    const due = force ? sql`true` : sql`${jobSchedules.nextRunAt} <= now()`;
    const claimed = await this.db
      .update(jobSchedules)
      .set({
        leaseUntil: sql`now() + ${interval(leaseMs)}`,
        leaseOwner: this.nodeId,
        nextRunAt: sql`now() + ${interval(job.intervalMs + this.jitter(job))}`,
      })
      .where(
        sql`${jobSchedules.name} = ${job.name} and ${due} and (${jobSchedules.leaseUntil} is null or ${jobSchedules.leaseUntil} < now())`,
      )
      .returning({ name: jobSchedules.name });
    return claimed.length > 0;
  }

  private async execute(entry: Entry): Promise<unknown> {
    const { job } = entry;
    const startedAt = new Date();
    const log = this.log.child({ job: job.name });
    const run = job.run({ signal: this.abort.signal, log });
    entry.running = run;
    try {
      const result = (await run) ?? null;
      await this.finish(entry, startedAt, { result });
      return result;
    } catch (err) {
      log.error({ err }, 'job failed');
      await this.finish(entry, startedAt, { error: err instanceof Error ? err.message : String(err) });
      throw err;
    } finally {
      entry.running = undefined;
    }
  }

  private async finish(
    entry: Entry,
    startedAt: Date,
    outcome: { result?: unknown; error?: string },
  ): Promise<void> {
    const { job, local } = entry;
    const finishedAt = new Date();
    const failed = outcome.error !== undefined;
    local.lastStartedAt = startedAt.toISOString();
    local.lastFinishedAt = finishedAt.toISOString();
    local.lastNode = this.nodeId;
    local.runs += 1;
    local.failures = failed ? local.failures + 1 : 0;
    if (failed) local.lastError = outcome.error ?? null;
    else {
      local.lastResult = outcome.result;
      local.lastError = null;
    }
    if (job.scope !== 'cluster') return;
    await this.db
      .update(jobSchedules)
      .set({
        leaseUntil: null,
        leaseOwner: null,
        lastStartedAt: startedAt,
        lastFinishedAt: finishedAt,
        lastNode: this.nodeId,
        runs: sql`${jobSchedules.runs} + 1`,
        ...(failed
          ? {
              lastError: outcome.error,
              failures: sql`${jobSchedules.failures} + 1`,
              nextRunAt: sql`least(${jobSchedules.nextRunAt}, now() + ${`${RETRY_AFTER_FAILURE_MS} milliseconds`}::interval)`,
            }
          : { lastResult: outcome.result as object, lastError: null, failures: 0 }),
      })
      .where(eq(jobSchedules.name, job.name))
      .catch((err) => this.log.warn({ err, job: job.name }, 'could not record a job run'));
  }
}
