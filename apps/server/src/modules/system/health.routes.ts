import type { FastifyPluginAsyncZod } from '@fastify/type-provider-zod';
import { PING_BODY } from '@granary/contracts';
import type { FastifyReply } from 'fastify';
import { z } from 'zod';
import { openBlobFaults, SCRUB_JOB_NAME } from '../../platform/blobs/index.ts';
import type { Db } from '../../platform/db/index.ts';
import { DATABASE_RETRY_AFTER_SECS } from '../../platform/http/infrastructure-errors.ts';
import type { Jobs } from '../../platform/jobs/index.ts';
import type { DatabaseCheck, HealthChecks } from './health.service.ts';

const tags = ['system'];
const stateSchema = z.enum(['HEALTHY', 'UNHEALTHY']);
const checkSchema = z.object({ state: stateSchema, message: z.string() });
const faultSchema = z.object({
  sha256: z.string(),
  kind: z.enum(['corrupt', 'missing', 'empty']),
  detail: z.string(),
  artifact: z.string().nullable(),
  source: z.enum(['download', 'scrub']),
  firstSeenAt: z.string(),
  lastSeenAt: z.string(),
  occurrences: z.number(),
});

/**
 * Health (issue 12 §10, §12). Like Artifactory's, `/api/system/ping` answers `OK` only while the server
 * can serve — its database answers — and 503 with the reason otherwise; `/api/v1/system/readiness`
 * says the same, `/api/v1/system/liveness` only that the process answers. `/api/system/health` is
 * the detail: database and storage (a full disk shows there; downloads still work then, so it does
 * not fail readiness). The scrub report is for administrators.
 */
export function healthRoutes(health: HealthChecks, deps: { db: Db; jobs: Jobs }): FastifyPluginAsyncZod {
  return async (app) => {
    const answer = (reply: FastifyReply, database: DatabaseCheck): void => {
      reply.type('text/plain; charset=utf-8').header('cache-control', 'no-store');
      if (database.healthy) reply.send(PING_BODY);
      else reply.code(503).header('retry-after', String(DATABASE_RETRY_AFTER_SECS)).send(database.message);
    };
    // Answered at once from a fresh healthy check, without a promise (issue 24, B0: a probe is the
    // request a load balancer makes most).
    const ready = (reply: FastifyReply): void | Promise<void> => {
      const fresh = health.freshDatabase();
      if (fresh) return answer(reply, fresh);
      return health.database().then((database) => answer(reply, database));
    };
    const text = { 200: z.string(), 503: z.string() };
    app.get(
      '/api/system/ping',
      {
        config: { access: 'public' },
        schema: {
          tags,
          summary: 'OK while the server can serve (its database answers); 503 with the reason otherwise',
          response: text,
        },
      },
      (_request, reply) => ready(reply),
    );
    app.get(
      '/api/v1/system/readiness',
      {
        config: { access: 'public' },
        schema: { tags, summary: 'Readiness probe: OK while the database answers, else 503', response: text },
      },
      (_request, reply) => ready(reply),
    );
    app.get(
      '/api/v1/system/liveness',
      {
        config: { access: 'public' },
        schema: {
          tags,
          summary: 'Liveness probe: OK while the process answers',
          response: { 200: z.string() },
        },
      },
      async (_request, reply) =>
        reply.type('text/plain; charset=utf-8').header('cache-control', 'no-store').send(PING_BODY),
    );

    const healthSchema = z.object({
      state: stateSchema,
      checks: z.object({ database: checkSchema, storage: checkSchema }),
    });
    app.get(
      '/api/system/health',
      {
        config: { access: 'public' },
        schema: {
          tags,
          summary: 'Health detail: the database and the storage (no space left shows here)',
          response: { 200: healthSchema, 503: healthSchema },
        },
      },
      async (_request, reply) => {
        const [database, storage] = await Promise.all([health.database(), health.storageCheck()]);
        const state = (ok: boolean): 'HEALTHY' | 'UNHEALTHY' => (ok ? 'HEALTHY' : 'UNHEALTHY');
        const healthy = database.healthy && storage.healthy;
        return reply
          .code(healthy ? 200 : 503)
          .header('cache-control', 'no-store')
          .send({
            state: state(healthy),
            checks: {
              database: { state: state(database.healthy), message: database.message },
              storage: { state: state(storage.healthy), message: storage.message },
            },
          });
      },
    );

    app.get(
      '/api/system/storage/scrub',
      {
        config: { access: 'admin' },
        schema: {
          tags,
          summary: 'The blob scrub: its schedule, its last report and the blobs marked for repair',
          response: {
            200: z.object({
              job: z.object({
                running: z.boolean(),
                nextRunAt: z.string().nullable(),
                lastStartedAt: z.string().nullable(),
                lastFinishedAt: z.string().nullable(),
                lastError: z.string().nullable(),
              }),
              report: z.unknown(),
              openFaults: z.array(faultSchema),
            }),
          },
        },
      },
      async () => {
        const status = (await deps.jobs.status()).find((j) => j.name === SCRUB_JOB_NAME);
        return {
          job: {
            running: status?.running ?? false,
            nextRunAt: status?.nextRunAt ?? null,
            lastStartedAt: status?.lastStartedAt ?? null,
            lastFinishedAt: status?.lastFinishedAt ?? null,
            lastError: status?.lastError ?? null,
          },
          report: status?.lastResult ?? null,
          openFaults: await openBlobFaults(deps.db),
        };
      },
    );
  };
}
