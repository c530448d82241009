import type { FastifyPluginAsyncZod } from '@fastify/type-provider-zod';
import { z } from 'zod';
import { ConflictError, NotFoundError } from '../../platform/http/errors.ts';
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

/** The background jobs of platform/jobs, for administrators: what runs, when it ran, how it went; run one now. */
export function jobsRoutes(jobs: Jobs): FastifyPluginAsyncZod {
  return async (app) => {
    app.get(
      '/api/system/jobs',
      {
        config: { access: 'admin' },
        schema: {
          tags,
          summary: 'Background jobs: schedule, last run, last result or error',
          response: { 200: z.object({ jobs: z.array(jobStatusSchema) }) },
        },
      },
      async () => ({ jobs: await jobs.status() }),
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
