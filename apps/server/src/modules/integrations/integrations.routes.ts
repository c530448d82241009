import type { FastifyPluginAsyncZod } from '@fastify/type-provider-zod';
import {
  connectedIntegrationSchema,
  gitIntegrationSchema,
  integrationGroupSchema,
  integrationRepositoryScanSchema,
  repositoryScanSchema,
  repositorySelectionSchema,
  testConnectionResultSchema,
  vcsRepositorySchema,
  vendorItemSchema,
} from '@granary/contracts';
import { z } from 'zod';
import { InvalidError } from '../../platform/errors.ts';
import {
  connectedIntegrations,
  createIntegration,
  deleteIntegration,
  type IntegrationsContext,
  listAllScans,
  listGroups,
  listRepositories,
  listScans,
  queueScans,
  requireGitFeature,
  selectRepositories,
  testConnection,
  updateIntegration,
  vendorItems,
} from './integrations.service.ts';

const UI = '/ui/api/v1/';
const tags = ['integrations'];
const admin = { access: 'admin' as const };
/** The form as sent; the service validates it with gitIntegrationFormSchema (the §5 messages). */
const formBody = z.record(z.string(), z.unknown());
const keyParams = z.object({ key: z.string().min(1).max(200) });

/**
 * Git integrations (issue 18, spec 001 §7 "Integrations") under the console's prefix. Every route but
 * the group list is for administrators with the `gitRepoScanning` feature on (§4, §6); the list
 * answers any signed-in user, with the git group unavailable and empty unless both hold.
 */
export function integrationsRoutes(ctx: IntegrationsContext): FastifyPluginAsyncZod {
  return async (app) => {
    app.addHook('preHandler', async (request) => {
      if (request.routeOptions.config.access === 'admin') await requireGitFeature(ctx);
    });

    app.get(
      `${UI}integrations`,
      {
        config: { access: 'authenticated' },
        schema: { tags, summary: 'Integration groups', response: { 200: z.array(integrationGroupSchema) } },
      },
      async (request) => listGroups(ctx, request.principal?.admin === true),
    );
    // Before `integrations/:type` in reading order; a static path wins over the parameter in any order.
    app.get(
      `${UI}integrations/scans`,
      {
        config: admin,
        schema: {
          tags,
          summary:
            'The latest scan of every selected repository of every integration (Security & Compliance)',
          response: { 200: z.array(integrationRepositoryScanSchema) },
        },
      },
      async () => listAllScans(ctx),
    );
    app.get(
      `${UI}integrations/:type`,
      {
        config: admin,
        schema: {
          tags,
          summary: 'Vendor items of an integration kind',
          params: z.object({ type: z.string() }),
          response: { 200: z.array(vendorItemSchema) },
        },
      },
      async (request) => {
        if (request.params.type !== 'git') return [];
        return vendorItems(ctx);
      },
    );
    app.post(
      `${UI}integrations/testConnection`,
      {
        config: admin,
        schema: {
          tags,
          summary: 'Test a git integration form against the vendor API',
          body: formBody,
          response: { 200: testConnectionResultSchema },
        },
      },
      async (request) => testConnection(ctx, request.body),
    );
    app.post(
      `${UI}integrations`,
      {
        config: admin,
        schema: {
          tags,
          summary: 'Create a git integration; answers its key',
          body: formBody,
          response: { 200: z.string() },
        },
      },
      // "The integration key as plain data": a JSON string (the reply is sent as is, already JSON).
      async (request, reply) =>
        reply
          .type('application/json; charset=utf-8')
          .send(JSON.stringify(await createIntegration(ctx, request.body as never))),
    );
    app.put(
      `${UI}integration/:key`,
      {
        config: admin,
        schema: {
          tags,
          summary: 'Update a git integration (empty token keeps the stored one)',
          params: keyParams,
          body: formBody,
          response: { 200: gitIntegrationSchema },
        },
      },
      async (request) => updateIntegration(ctx, request.params.key, request.body as never),
    );
    app.delete(
      `${UI}integration/:key`,
      { config: admin, schema: { tags, summary: 'Delete a git integration', params: keyParams } },
      async (request, reply) => {
        await deleteIntegration(ctx, request.params.key);
        return reply.code(204).send();
      },
    );
    for (const [url, xray] of [
      [`${UI}xray/ui/vcs_integrations`, true],
      [`${UI}integration/getIntegrations`, false],
      [`${UI}integrations/xray/connected`, true],
    ] as const)
      app.get(
        url,
        {
          config: admin,
          schema: {
            tags,
            summary: xray ? 'Integrations connected to xray (with integration_id)' : 'Connected integrations',
            response: { 200: z.array(connectedIntegrationSchema) },
          },
        },
        async () => connectedIntegrations(ctx, xray),
      );
    app.get(
      `${UI}integration/:key/repositories`,
      {
        config: admin,
        schema: {
          tags,
          summary: "The vendor's repositories (selected = scanned)",
          params: keyParams,
          response: { 200: z.array(vcsRepositorySchema) },
        },
      },
      async (request) => listRepositories(ctx, request.params.key),
    );
    app.put(
      `${UI}integration/:key/repositories`,
      {
        config: admin,
        schema: {
          tags,
          summary: 'Choose the repositories to scan',
          params: keyParams,
          body: repositorySelectionSchema,
          response: { 200: z.array(vcsRepositorySchema) },
        },
      },
      async (request) => selectRepositories(ctx, request.params.key, request.body.repositories),
    );
    app.post(
      `${UI}integration/:key/scan`,
      {
        config: admin,
        schema: {
          tags,
          summary: 'Scan the selected repositories again',
          params: keyParams,
          body: z.object({ repositories: z.array(z.string()).optional() }).optional(),
        },
      },
      async (request, reply) => {
        const names = request.body?.repositories;
        if (names && names.length > 1000) throw new InvalidError('Too many repositories');
        const queued = await queueScans(ctx, request.params.key, names);
        return reply.code(202).send({ queued });
      },
    );
    app.get(
      `${UI}integration/:key/scans`,
      {
        config: admin,
        schema: {
          tags,
          summary: 'The latest scan of each selected repository',
          params: keyParams,
          response: { 200: z.array(repositoryScanSchema) },
        },
      },
      async (request) => listScans(ctx, request.params.key),
    );
  };
}
