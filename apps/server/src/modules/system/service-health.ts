import { randomUUID } from 'node:crypto';
import { statfs } from 'node:fs/promises';
import { Readable } from 'node:stream';
import type { HealthDetail, MicroService, ServiceState } from '@granary/contracts';
import type { BlobStore } from '../../platform/blobs/index.ts';
import type { Db } from '../../platform/db/index.ts';
import type { Jobs } from '../../platform/jobs/index.ts';
import type { HealthChecks } from './health.service.ts';
import { probeDatabaseWrite } from './system.queries.ts';

/** A subscriber failing this many times in a row makes the event worker unhealthy. */
export const SUBSCRIBER_FAILURES_UNHEALTHY = 3;
/** A due queued job waiting longer than this makes the job lag unhealthy. */
export const JOB_LAG_UNHEALTHY_MS = 5 * 60_000;
/** Less than this free under GRANARY_HOME reads as full (as the storage check). */
export const DISK_LOW_FREE_BYTES = 16 * 1024 * 1024;
/**
 * The heartbeat asks the blob store for a blob (a real round trip: a file stat, an S3 HEAD) at most this
 * often. It writes nothing: the write probe is the health detail's, on demand.
 */
const BLOB_PROBE_EVERY_MS = 30_000;
/** No blob has this address (SHA-256 of nothing is e3b0…): a stat of it only proves the store answers. */
const ABSENT_BLOB = '0'.repeat(64);
/** A probe that has not answered in this long has failed. */
const PROBE_TIMEOUT_MS = 5_000;

type Detail = Record<string, string | number | boolean | null>;
interface Check {
  state: ServiceState;
  message: string;
  latency_ms?: number;
  detail?: Detail;
}

export interface HttpState {
  /** The address the server listens at, or null while it does not (an in-process test app). */
  address: string | null;
  /** True from the start of a shutdown on. */
  closing: boolean;
}

export interface ServiceHealthDeps {
  nodeId: string;
  home: string;
  db: Db;
  /** `pglite` (embedded) or `postgres` (a PostgreSQL server). */
  databaseKind: 'pglite' | 'postgres';
  blobs: BlobStore;
  jobs: Jobs;
  health: HealthChecks;
  http: () => HttpState;
  startedAt: Date;
}

const state = (ok: boolean): ServiceState => (ok ? 'HEALTHY' : 'UNHEALTHY');
const messageOf = (error: unknown) => (error instanceof Error ? error.message : String(error));

function withTimeout<T>(promise: Promise<T>, ms: number, what: string): Promise<T> {
  let timer: NodeJS.Timeout | undefined;
  return Promise.race([
    promise,
    new Promise<never>((_resolve, reject) => {
      timer = setTimeout(() => reject(new Error(`${what}: no answer in ${ms} ms`)), ms);
    }),
  ]).finally(() => clearTimeout(timer));
}

/**
 * The health of this node's parts (issue 15): the HTTP server, the database, the blob store, the
 * event worker and each recurring job — written with every heartbeat (so any node shows them) — and
 * the admin's health detail, which probes for real: a database write rolled back, a blob written and
 * deleted, the event and job backlogs, the disk free under GRANARY_HOME.
 */
export class ServiceHealth {
  private lastBlobProbe: { at: number; check: Check } | undefined;

  constructor(private readonly deps: ServiceHealthDeps) {}

  /** Every part of this node with its health, as the heartbeat stores it. */
  async collect(opts: { probeBlobs?: boolean } = {}): Promise<MicroService[]> {
    const at = new Date();
    const uptime = Math.max(0, Math.floor((at.getTime() - this.deps.startedAt.getTime()) / 1000));
    const part = (
      name: string,
      kind: MicroService['kind'],
      critical: boolean,
      check: Check,
    ): MicroService => ({
      name,
      kind,
      critical,
      state: check.state,
      message: check.message,
      last_heartbeat: at.toISOString(),
      uptime,
      detail: {
        ...(check.latency_ms === undefined ? {} : { latency_ms: check.latency_ms }),
        ...check.detail,
      },
    });
    const [database, blobstore, events, jobs] = await Promise.all([
      this.databaseCheck(),
      this.blobStoreCheck(opts.probeBlobs ?? false),
      this.eventBacklog(),
      this.recurringJobs(),
    ]);
    return [
      part('http', 'http', true, this.httpCheck()),
      part('database', 'database', true, database),
      part('blobstore', 'blobstore', true, blobstore),
      part('events', 'events', false, events),
      ...jobs.map((j) => part(`job:${j.name}`, 'job', false, j.check)),
    ];
  }

  /** The admin's health detail: every probe run now; UNHEALTHY when one is. */
  async detail(): Promise<HealthDetail> {
    const [database_write, blobstore_write, event_backlog, job_lag, disk] = await Promise.all([
      this.probeDatabase(),
      this.probeBlobStore(),
      this.eventBacklog(),
      this.jobLag(),
      this.disk(),
    ]);
    const checks = { database_write, blobstore_write, event_backlog, job_lag, disk };
    return {
      state: state(Object.values(checks).every((c) => c.state === 'HEALTHY')),
      node_id: this.deps.nodeId,
      checked_at: new Date().toISOString(),
      checks,
    };
  }

  private httpCheck(): Check {
    const http = this.deps.http();
    if (http.closing)
      return { state: 'UNHEALTHY', message: 'Shutting down', detail: { address: http.address } };
    return {
      state: 'HEALTHY',
      message: http.address ? `Listening at ${http.address}` : 'Serving in-process (not listening)',
      detail: { address: http.address },
    };
  }

  private async databaseCheck(): Promise<Check> {
    const db = await this.deps.health.database();
    return {
      state: state(db.healthy),
      message: db.message,
      latency_ms: db.latencyMs,
      detail: { kind: this.deps.databaseKind },
    };
  }

  /** Free space and refused writes; with `probe`, also whether the store answers (at most every 30 s). */
  private async blobStoreCheck(probe: boolean): Promise<Check> {
    const storage = await this.deps.health.storageCheck();
    if (probe && (!this.lastBlobProbe || Date.now() - this.lastBlobProbe.at >= BLOB_PROBE_EVERY_MS))
      this.lastBlobProbe = { at: Date.now(), check: await this.probeBlobRead() };
    const last = this.lastBlobProbe;
    const detail: Detail = {
      kind: this.deps.blobs.kind,
      free_bytes: storage.freeBytes ?? null,
      last_probe_at: last ? new Date(last.at).toISOString() : null,
    };
    if (!storage.healthy) return { state: 'UNHEALTHY', message: storage.message, detail };
    if (last && last.check.state !== 'HEALTHY') return { ...last.check, detail };
    return {
      state: 'HEALTHY',
      message: `${this.deps.blobs.kind === 's3' ? 'S3-compatible store' : 'Filesystem store'}: OK`,
      latency_ms: last?.check.latency_ms,
      detail,
    };
  }

  /** Whether the blob store answers a read (of a blob that does not exist), within the probe timeout. */
  private async probeBlobRead(): Promise<Check> {
    const started = Date.now();
    try {
      await withTimeout(this.deps.blobs.stat(ABSENT_BLOB), PROBE_TIMEOUT_MS, 'blob store read');
      return { state: 'HEALTHY', message: 'The store answers', latency_ms: Date.now() - started };
    } catch (error) {
      return {
        state: 'UNHEALTHY',
        message: `Blob store unreachable: ${messageOf(error)}`,
        latency_ms: Date.now() - started,
      };
    }
  }

  async probeDatabase(): Promise<Check> {
    const started = Date.now();
    try {
      await withTimeout(
        probeDatabaseWrite(this.deps.db, this.deps.nodeId),
        PROBE_TIMEOUT_MS,
        'database write',
      );
      return {
        state: 'HEALTHY',
        message: 'A write was taken and rolled back',
        latency_ms: Date.now() - started,
      };
    } catch (error) {
      return {
        state: 'UNHEALTHY',
        message: `Database write failed: ${messageOf(error)}`,
        latency_ms: Date.now() - started,
      };
    }
  }

  /** Writes a small blob of unique content (so it is no artifact's), reads its size back and deletes it. */
  async probeBlobStore(): Promise<Check> {
    const started = Date.now();
    const content = Buffer.from(
      `granary health probe ${this.deps.nodeId} ${new Date().toISOString()} ${randomUUID()}\n`,
    );
    try {
      await withTimeout(
        (async () => {
          const info = await this.deps.blobs.put(Readable.from([content]));
          try {
            const stat = await this.deps.blobs.stat(info.sha256);
            if (stat?.size !== content.length) throw new Error('the probe blob did not read back');
          } finally {
            await this.deps.blobs.delete(info.sha256);
            await info.hold?.release(); // issue 21: its row then goes with the next blob GC
          }
        })(),
        PROBE_TIMEOUT_MS,
        'blob store write',
      );
      return {
        state: 'HEALTHY',
        message: 'A blob was written, read back and deleted',
        latency_ms: Date.now() - started,
        detail: { kind: this.deps.blobs.kind },
      };
    } catch (error) {
      return {
        state: 'UNHEALTHY',
        message: `Blob store write failed: ${messageOf(error)}`,
        latency_ms: Date.now() - started,
        detail: { kind: this.deps.blobs.kind },
      };
    }
  }

  /** The event worker: outbox subscribers' lag and failures, queued jobs pending and dead-lettered. */
  private async eventBacklog(): Promise<Check> {
    try {
      const [subscribers, queues] = await Promise.all([
        this.deps.jobs.subscriberStatus(),
        this.deps.jobs.queueStatus(),
      ]);
      const lag = subscribers.reduce((n, s) => n + s.lag, 0);
      const pending = queues.reduce((n, q) => n + q.pending, 0);
      const dead = queues.reduce((n, q) => n + q.dead, 0);
      const failing = subscribers.filter((s) => s.failures >= SUBSCRIBER_FAILURES_UNHEALTHY);
      const detail: Detail = {
        subscribers: subscribers.length,
        event_lag: lag,
        queued_pending: pending,
        queued_dead: dead,
        failing_subscribers: failing.map((s) => s.name).join(', ') || null,
      };
      if (failing.length > 0) {
        const s = failing[0]!;
        return {
          state: 'UNHEALTHY',
          message: `Subscriber ${s.name} failed ${s.failures} times in a row: ${s.lastError ?? 'unknown error'}`,
          detail,
        };
      }
      return {
        state: 'HEALTHY',
        message: `${lag} events to deliver, ${pending} jobs pending, ${dead} dead-lettered`,
        detail,
      };
    } catch (error) {
      return { state: 'UNHEALTHY', message: `Event worker status unavailable: ${messageOf(error)}` };
    }
  }

  private async recurringJobs(): Promise<{ name: string; check: Check }[]> {
    try {
      return (await this.deps.jobs.status()).map((j) => ({
        name: j.name,
        check: {
          state: state(j.failures === 0),
          message:
            j.failures > 0
              ? `Failed ${j.failures} time${j.failures === 1 ? '' : 's'} in a row: ${j.lastError ?? 'unknown error'}`
              : j.running
                ? 'Running'
                : j.lastFinishedAt
                  ? `Last run finished at ${j.lastFinishedAt}`
                  : 'Not run yet',
          detail: {
            scope: j.scope,
            interval_ms: j.intervalMs,
            running: j.running,
            runs: j.runs,
            failures: j.failures,
            last_error: j.lastError,
            last_finished_at: j.lastFinishedAt,
            next_run_at: j.nextRunAt,
            last_node: j.lastNode,
          },
        },
      }));
    } catch {
      return [];
    }
  }

  private async jobLag(): Promise<Check> {
    try {
      const { ageMs, queue } = await this.deps.jobs.oldestDueJob();
      const detail: Detail = { oldest_due_ms: ageMs, queue };
      if (ageMs > JOB_LAG_UNHEALTHY_MS)
        return {
          state: 'UNHEALTHY',
          message: `The oldest due job (queue ${queue}) has waited ${Math.round(ageMs / 1000)} s`,
          detail,
        };
      return {
        state: 'HEALTHY',
        message: queue ? `The oldest due job has waited ${Math.round(ageMs / 1000)} s` : 'No job is waiting',
        detail,
      };
    } catch (error) {
      return { state: 'UNHEALTHY', message: `Job queue unavailable: ${messageOf(error)}` };
    }
  }

  /** Free space under GRANARY_HOME (statfs), and the storage check (a write refused for lack of space). */
  private async disk(): Promise<Check> {
    try {
      const [fs, storage] = await Promise.all([statfs(this.deps.home), this.deps.health.storageCheck()]);
      const free = fs.bavail * fs.bsize;
      const total = fs.blocks * fs.bsize;
      const detail: Detail = { free_bytes: free, total_bytes: total };
      if (free < DISK_LOW_FREE_BYTES)
        return { state: 'UNHEALTHY', message: `Only ${free} bytes free under GRANARY_HOME`, detail };
      if (!storage.healthy) return { state: 'UNHEALTHY', message: storage.message, detail };
      return {
        state: 'HEALTHY',
        message: `${Math.round(free / 1024 / 1024)} MiB free of ${Math.round(total / 1024 / 1024)} MiB`,
        detail,
      };
    } catch (error) {
      return { state: 'UNHEALTHY', message: `Disk unreadable: ${messageOf(error)}` };
    }
  }
}
