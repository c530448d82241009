import type { FastifyPluginAsyncZod } from '@fastify/type-provider-zod';
import {
  archiveRestoreAnswerSchema,
  archiveRestoreRequestSchema,
  archiveSearchAnswerSchema,
  archiveSearchQuerySchema,
  retentionDryRunSchema,
  retentionEnableSchema,
  retentionPoliciesSchema,
  retentionPolicyInputSchema,
  retentionPolicySchema,
} from '@granary/contracts';
import { z } from 'zod';
import type { Jobs } from '../../platform/jobs/index.ts';
import {
  changePolicy,
  createPolicy,
  dryRun,
  getPolicy,
  policies,
  RETENTION_RUN_QUEUE,
  type RetentionContext,
  removePolicy,
  restoreArchived,
  searchArchive,
} from './retention.service.ts';

const tags = ['retention'];
const admin = { access: 'admin' as const };
const idParams = z.object({ id: z.string().max(64) });

/**
 * Issue 21: cleanup and retention policies (admin), the archive's search and restore (admin: the
 * console checks the retention feature for admins only, spec 001 §4/§6), and spec 001 §7
 * `GET bundle retention config enable`.
 */
export function retentionRoutes(ctx: RetentionContext, jobs: Jobs): FastifyPluginAsyncZod {
  return async (app) => {
    app.get(
      '/ui/api/v1/retention/config/enable',
      {
        config: admin,
        schema: {
          tags,
          summary: 'Whether retention (the archive, cold storage) is on: an archive store is configured',
          response: { 200: retentionEnableSchema },
        },
      },
      async () => ({ enable: ctx.archive !== null }),
    );

    app.get(
      '/api/retention/policies',
      {
        config: admin,
        schema: {
          tags,
          summary: 'Cleanup and retention policies',
          response: { 200: retentionPoliciesSchema },
        },
      },
      async () => ({ policies: await policies(ctx) }),
    );
    app.post(
      '/api/retention/policies',
      {
        config: admin,
        schema: {
          tags,
          summary: 'Create a policy',
          body: retentionPolicyInputSchema,
          response: { 201: retentionPolicySchema },
        },
      },
      async (request, reply) => reply.code(201).send(await createPolicy(ctx, request.body)),
    );
    app.get(
      '/api/retention/policies/:id',
      {
        config: admin,
        schema: { tags, summary: 'A policy', params: idParams, response: { 200: retentionPolicySchema } },
      },
      async (request) => getPolicy(ctx, request.params.id),
    );
    app.put(
      '/api/retention/policies/:id',
      {
        config: admin,
        schema: {
          tags,
          summary: 'Change a policy',
          params: idParams,
          body: retentionPolicyInputSchema,
          response: { 200: retentionPolicySchema },
        },
      },
      async (request) => changePolicy(ctx, request.params.id, request.body),
    );
    app.delete(
      '/api/retention/policies/:id',
      { config: admin, schema: { tags, summary: 'Delete a policy', params: idParams } },
      async (request, reply) => {
        await removePolicy(ctx, request.params.id);
        return reply.code(204).send();
      },
    );
    app.post(
      '/api/retention/policies/:id/dry-run',
      {
        config: admin,
        schema: {
          tags,
          summary: 'What the policy would remove now (list and bytes); nothing changes',
          params: idParams,
          response: { 200: retentionDryRunSchema },
        },
      },
      async (request) => dryRun(ctx, request.params.id),
    );
    app.post(
      '/api/retention/policies/:id/run',
      {
        config: admin,
        schema: {
          tags,
          summary: 'Run the policy now, in the background (queue retention.run); 202',
          params: idParams,
          response: { 202: z.object({ queued: z.boolean() }) },
        },
      },
      async (request, reply) => {
        const policy = await getPolicy(ctx, request.params.id);
        await jobs.enqueue(ctx.db, RETENTION_RUN_QUEUE, { policyId: policy.id }, { dedupeKey: policy.id });
        return reply.code(202).send({ queued: true });
      },
    );

    app.get(
      '/api/retention/archive/search',
      {
        config: admin,
        schema: {
          tags,
          summary: 'Archive search: archived files by name or path, repository, archive date',
          querystring: archiveSearchQuerySchema,
          response: { 200: archiveSearchAnswerSchema },
        },
      },
      async (request) => searchArchive(ctx, request.query),
    );
    app.post(
      '/api/retention/archive/restore',
      {
        config: admin,
        schema: {
          tags,
          summary: 'Restore archived files to their paths (refused where a file is stored now)',
          body: archiveRestoreRequestSchema,
          response: { 200: archiveRestoreAnswerSchema },
        },
      },
      async (request) => restoreArchived(ctx, request.body.ids, request.principal?.name ?? 'anonymous'),
    );
  };
}
