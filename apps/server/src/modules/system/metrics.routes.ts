import type { FastifyPluginAsyncZod } from '@fastify/type-provider-zod';
import { z } from 'zod';
import { ForbiddenError } from '../../platform/errors.ts';
import type { Jobs } from '../../platform/jobs/index.ts';
import type { Metrics } from '../../platform/metrics/index.ts';
import type { HealthChecks } from './health.service.ts';

/**
 * The cluster's background-work gauges, read from the database when scraped: the outbox backlog of
 * each subscriber (events not yet handed to webhooks and the other subscribers), each queue's jobs
 * by state, each recurring job's failures in a row, and the database's answer time.
 */
export function registerSystemMetrics(metrics: Metrics, jobs: Jobs, health: HealthChecks): void {
  metrics.gauge(
    'granary_events_backlog',
    'Committed domain events each outbox subscriber has not handled yet (webhooks: webhooks.match)',
    ['subscriber'],
    async (set) => {
      for (const s of await jobs.subscriberStatus()) set({ subscriber: s.name }, s.lag);
    },
  );
  metrics.gauge(
    'granary_job_queue_jobs',
    'Queued jobs by queue and state (pending, running, dead)',
    ['queue', 'state'],
    async (set) => {
      for (const q of await jobs.queueStatus()) {
        set({ queue: q.name, state: 'pending' }, q.pending);
        set({ queue: q.name, state: 'running' }, q.running);
        set({ queue: q.name, state: 'dead' }, q.dead);
      }
    },
  );
  metrics.gauge(
    'granary_recurring_job_failures',
    'Failed runs in a row of each recurring job (0: its last run succeeded)',
    ['job'],
    async (set) => {
      for (const j of await jobs.status()) set({ job: j.name }, j.failures);
    },
  );
  metrics.gauge(
    'granary_database_probe_seconds',
    "The database's answer time to a probe query (select 1), measured when scraped",
    [],
    async (set) => {
      const check = await health.database();
      set({}, check.latencyMs / 1000);
    },
  );
  metrics.gauge(
    'granary_database_up',
    'Whether the database answers the probe (1) or not (0)',
    [],
    async (set) => {
      set({}, (await health.database()).healthy ? 1 : 0);
    },
  );
}

/**
 * `GET /api/v1/metrics` (Artifactory's path): Prometheus text format for an administrator, or an
 * access token with Artifactory's metrics scope `system:metrics:r` — the token to give a Prometheus
 * server, which then reads metrics and nothing else an admin could.
 */
export function metricsRoutes(metrics: Metrics): FastifyPluginAsyncZod {
  return async (app) => {
    app.get(
      '/api/v1/metrics',
      {
        config: { access: 'authenticated' },
        schema: {
          tags: ['system'],
          summary:
            'Prometheus metrics (text format 0.0.4): requests, bytes, durations, blob store and database latency, ' +
            'event backlog, webhook deliveries, event loop, memory, per-repository counts. Admin or a token with scope system:metrics:r',
          response: { 200: z.string() },
        },
      },
      async (request, reply) => {
        const caller = request.principal;
        if (!caller?.admin && !caller?.scope?.metrics)
          throw new ForbiddenError(
            'Metrics need an administrator or a token with the system:metrics:r scope',
          );
        const body = await metrics.render();
        return reply.type(metrics.contentType()).header('cache-control', 'no-store').send(body);
      },
    );
  };
}
