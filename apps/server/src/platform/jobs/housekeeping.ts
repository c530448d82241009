import type { Db } from '../db/index.ts';
import { pruneEvents } from '../events/index.ts';
import type { Jobs } from './jobs.ts';
import { pruneDoneJobs } from './queue.ts';
import { leastPosition } from './subscribers.ts';

export const PRUNE_JOB_NAME = 'jobs.prune';

export interface Retention {
  /** A queued job done longer ago than this is deleted. */
  doneJobsMs: number;
  /** An outbox event older than this is deleted once every subscriber has passed it. */
  eventsMs: number;
}

export const DEFAULT_RETENTION: Retention = { doneJobsMs: 86_400_000, eventsMs: 7 * 86_400_000 };
const BATCH = 5_000;

/**
 * Deletes finished queued jobs past their retention (dead ones stay until an admin retries them)
 * and outbox events past theirs that every subscriber has passed, in batches.
 */
export async function pruneJobsAndEvents(
  db: Db,
  retention: Retention = DEFAULT_RETENTION,
  signal?: AbortSignal,
): Promise<{ doneJobs: number; events: number }> {
  let doneJobs = 0;
  for (let n = BATCH; n === BATCH && !signal?.aborted; doneJobs += n)
    n = await pruneDoneJobs(db, retention.doneJobsMs, BATCH);
  const before = await leastPosition(db);
  let events = 0;
  for (let n = BATCH; n === BATCH && !signal?.aborted; events += n)
    n = await pruneEvents(db, { olderThanMs: retention.eventsMs, before, limit: BATCH });
  return { doneJobs, events };
}

/** The cluster job that prunes the queue and the outbox (hourly, one node at a time). */
export function registerHousekeeping(jobs: Jobs, db: Db, retention: Retention = DEFAULT_RETENTION): void {
  jobs.recurring({
    name: PRUNE_JOB_NAME,
    scope: 'cluster',
    intervalMs: 3_600_000,
    jitterMs: 300_000,
    run: ({ signal }) => pruneJobsAndEvents(db, retention, signal),
  });
}
