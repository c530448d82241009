import type { FastifyPluginAsyncZod } from '@fastify/type-provider-zod';
import { z } from 'zod';
import { ConflictError, NotFoundError } from '../../platform/errors.ts';
import { JobBusyError, type Jobs, UnknownJobError } from '../../platform/jobs/index.ts';

const tags = ['system'];
const jobStatusSchema = z.object({
  name: z.string(),
  scope: z.enum(['cluster', 'node']),
  intervalMs: z.number(),
  running: z.boolean(),
  nextRunAt: z.string().nullable(),
  lastStartedAt: z.string().nullable(),
  lastFinishedAt: z.string().nullable(),
  lastNode: z.string().nullable(),
  lastResult: z.unknown(),
  lastError: z.string().nullable(),
  runs: z.number(),
  failures: z.number(),
});
const queueStatusSchema = z.object({
  name: z.string(),
  pending: z.number(),
  running: z.number(),
  dead: z.number(),
  done: z.number(),
  lastError: z.string().nullable(),
});
const subscriberStatusSchema = z.object({
  name: z.string(),
  types: z.array(z.string()),
  position: z.object({ xid: z.string(), id: z.number() }),
  lag: z.number(),
  delivered: z.number(),
  lastDeliveredAt: z.string().nullable(),
  lastError: z.string().nullable(),
  failures: z.number(),
  retryAt: z.string().nullable(),
});
const deadJobSchema = z.object({
  id: z.number(),
  payload: z.unknown(),
  attempts: z.number(),
  lastError: z.string().nullable(),
  createdAt: z.string(),
  finishedAt: z.string().nullable(),
});

/**
 * The background work of platform/jobs, for administrators: recurring jobs (schedule, last run, run
 * one now), queues (jobs per status, dead-lettered jobs and their retry) and outbox subscribers
 * (position, lag, failures).
 */
export function jobsRoutes(jobs: Jobs): FastifyPluginAsyncZod {
  return async (app) => {
    app.get(
      '/api/system/jobs',
      {
        config: { access: 'admin' },
        schema: {
          tags,
          summary: 'Background work: recurring jobs, job queues and outbox subscribers',
          response: {
            200: z.object({
              jobs: z.array(jobStatusSchema),
              queues: z.array(queueStatusSchema),
              subscribers: z.array(subscriberStatusSchema),
            }),
          },
        },
      },
      async () => ({
        jobs: await jobs.status(),
        queues: await jobs.queueStatus(),
        subscribers: await jobs.subscriberStatus(),
      }),
    );
    app.get(
      '/api/system/jobs/queues/:name/dead',
      {
        config: { access: 'admin' },
        schema: {
          tags,
          summary: 'The dead-lettered jobs of a queue (newest first, at most 100), with their last error',
          params: z.object({ name: z.string() }),
          response: { 200: z.object({ name: z.string(), jobs: z.array(deadJobSchema) }) },
        },
      },
      async (request) => ({ name: request.params.name, jobs: await jobs.deadJobs(request.params.name) }),
    );
    app.post(
      '/api/system/jobs/queues/:name/dead/:id/retry',
      {
        config: { access: 'admin' },
        schema: {
          tags,
          summary: 'Puts a dead-lettered job back in its queue to run now, with all its attempts',
          params: z.object({ name: z.string(), id: z.coerce.number().int().positive() }),
          response: { 200: z.object({ name: z.string(), id: z.number() }) },
        },
      },
      async (request) => {
        const { name, id } = request.params;
        const queued = await jobs.retryDead(name, id);
        if (queued === null) throw new NotFoundError(`No dead job ${id} in queue ${name}`);
        return { name, id: queued };
      },
    );
    app.post(
      '/api/system/jobs/:name/run',
      {
        config: { access: 'admin' },
        schema: {
          tags,
          summary: 'Runs a job now on this node and answers its result',
          params: z.object({ name: z.string() }),
          response: { 200: z.object({ name: z.string(), result: z.unknown() }) },
        },
      },
      async (request) => {
        try {
          return { name: request.params.name, result: await jobs.runNow(request.params.name) };
        } catch (err) {
          if (err instanceof UnknownJobError) throw new NotFoundError(err.message);
          if (err instanceof JobBusyError) throw new ConflictError(err.message);
          throw err;
        }
      },
    );
  };
}
