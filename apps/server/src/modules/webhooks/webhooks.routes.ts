import type { FastifyPluginAsyncZod } from '@fastify/type-provider-zod';
import { ErrorCode, EVENT_CATALOG, webhookAttemptSchema } from '@granary/contracts';
import type { FastifyRequest } from 'fastify';
import { z } from 'zod';
import { listRepositoryHeads } from '../repositories/repositories.api.ts';
import { subscriptionInputSchema } from './subscription.ts';
import {
  type Caller,
  createSubscription,
  deleteSubscription,
  deliveryLog,
  getSubscription,
  listSubscriptions,
  redeliver,
  testSubscription,
  updateSubscription,
  type WebhooksContext,
} from './webhooks.service.ts';

const tags = ['webhooks'];
/** Artifactory's public path, and the same under the console's API prefix. */
export const EVENT_API_PREFIXES = ['/event/api/v1/', '/ui/api/v1/event/api/v1/'];
const UI = '/ui/api/v1/';
const admin = { access: 'admin' as const };

const nameValue = z.object({ name: z.string(), value: z.string() });
const handlerSchema = z.object({
  handler_type: z.enum(['webhook', 'custom-webhook']),
  url: z.string(),
  secret: z.string().optional().describe('write-only: "" when one is set'),
  use_secret_for_signing: z.boolean().optional(),
  proxy: z.string().optional(),
  custom_http_headers: z.array(nameValue).optional(),
  method: z.enum(['POST', 'PUT', 'PATCH', 'GET', 'DELETE']).optional(),
  http_headers: z.array(nameValue).optional(),
  payload: z.string().optional(),
  secrets: z.array(nameValue).optional().describe('values write-only: ""'),
});
const subscriptionSchema = z.object({
  key: z.string(),
  description: z.string().optional(),
  enabled: z.boolean(),
  event_filter: z.object({
    domain: z.string(),
    event_types: z.array(z.string()),
    criteria: z
      .object({
        anyLocal: z.boolean().optional(),
        anyRemote: z.boolean().optional(),
        anyFederated: z.boolean().optional(),
        repoKeys: z.array(z.string()).optional(),
        anyBuild: z.boolean().optional(),
        selectedBuilds: z.array(z.string()).optional(),
        anyReleaseBundle: z.boolean().optional(),
        registeredReleaseBundlesNames: z.array(z.string()).optional(),
        anyEnvironment: z.boolean().optional(),
        environments: z.array(z.string()).optional(),
        includePatterns: z.array(z.string()).optional(),
        excludePatterns: z.array(z.string()).optional(),
      })
      .optional(),
  }),
  handlers: z.array(handlerSchema),
  disabled_reason: z.string().nullable().optional(),
  last_delivery: z
    .object({
      id: z.string(),
      status: z.enum(['pending', 'retrying', 'delivered', 'failed']),
      response_status: z.number().nullable().optional(),
      at: z.string(),
    })
    .nullable()
    .optional(),
});
const domainSchema = z.object({
  domain: z.string(),
  title: z.string(),
  event_types: z.array(z.object({ type: z.string(), title: z.string() })),
  criteria: z.enum(['repositories', 'builds', 'releaseBundles', 'none']),
  available: z.boolean(),
  note: z.string().optional(),
});
const keyParams = z.object({ key: z.string().min(1).max(200) });
const messageSchema = z.object({ message: z.string() });
const errorEnvelope = z.object({
  errors: z.array(z.object({ status: z.number(), code: z.string(), message: z.string() })),
});

const callerOf = (request: FastifyRequest): Caller => ({
  name: request.principal?.name ?? null,
  ip: request.ip,
  requestId: request.id,
});

/**
 * Webhook subscriptions (issue 14, spec 001 §7 "Webhooks"): Artifactory's `event/api/v1` API, at its
 * public path and under the console's prefix; administrators only, on every route.
 */
export function webhookRoutes(ctx: WebhooksContext): FastifyPluginAsyncZod {
  return async (app) => {
    for (const P of EVENT_API_PREFIXES) {
      const hide = P !== EVENT_API_PREFIXES[0];
      app.get(
        `${P}subscriptions`,
        {
          config: admin,
          schema: {
            tags,
            hide,
            summary: 'Webhook subscriptions',
            response: { 200: z.array(subscriptionSchema) },
          },
        },
        async () => listSubscriptions(ctx),
      );
      app.post(
        `${P}subscriptions`,
        {
          config: admin,
          schema: {
            tags,
            hide,
            summary: 'Create a webhook subscription (409 "This name already exist")',
            body: subscriptionInputSchema,
            response: { 201: subscriptionSchema },
          },
        },
        async (request, reply) =>
          reply.code(201).send(await createSubscription(ctx, request.body, callerOf(request))),
      );
      app.post(
        `${P}subscriptions/test`,
        {
          config: admin,
          schema: {
            tags,
            hide,
            summary:
              'Send a dummy event to the webhook given (saved or not): 502 when it fails, 504 on timeout',
            body: subscriptionInputSchema,
            response: { 200: messageSchema, 502: errorEnvelope, 504: errorEnvelope },
          },
        },
        async (request, reply) => {
          const result = await testSubscription(ctx, request.body);
          if (result.status === 200) return { message: result.message };
          const code = result.status === 504 ? 'UPSTREAM_TIMEOUT' : ErrorCode.UpstreamFailed;
          return reply
            .code(result.status)
            .send({ errors: [{ status: result.status, code, message: result.message }] });
        },
      );
      app.get(
        `${P}subscriptions/:key`,
        {
          config: admin,
          schema: {
            tags,
            hide,
            summary: 'A webhook subscription',
            params: keyParams,
            response: { 200: subscriptionSchema },
          },
        },
        async (request) => getSubscription(ctx, request.params.key),
      );
      app.put(
        `${P}subscriptions/:key`,
        {
          config: admin,
          schema: {
            tags,
            hide,
            summary:
              'Replace a webhook subscription (a key in the body is ignored; "" secrets keep the stored ones)',
            params: keyParams,
            body: subscriptionInputSchema,
            response: { 200: subscriptionSchema },
          },
        },
        async (request) => updateSubscription(ctx, request.params.key, request.body, callerOf(request)),
      );
      app.delete(
        `${P}subscriptions/:key`,
        {
          config: admin,
          schema: { tags, hide, summary: 'Delete a webhook subscription', params: keyParams },
        },
        async (request, reply) => {
          await deleteSubscription(ctx, request.params.key, callerOf(request));
          return reply.code(204).send();
        },
      );
      app.get(
        `${P}subscriptions/:key/deliveries`,
        {
          config: admin,
          schema: {
            tags,
            hide,
            summary: 'A webhook’s delivery log: every attempt, newest first',
            params: keyParams,
            querystring: z.object({
              limit: z.coerce.number().int().min(1).max(500).default(50),
              offset: z.coerce.number().int().min(0).default(0),
            }),
            response: {
              200: z.object({
                attempts: z.array(webhookAttemptSchema),
                total: z.number(),
                limit: z.number(),
                offset: z.number(),
              }),
            },
          },
        },
        async (request) => deliveryLog(ctx, request.params.key, request.query.limit, request.query.offset),
      );
      app.post(
        `${P}subscriptions/:key/deliveries/:id/redeliver`,
        {
          config: admin,
          schema: {
            tags,
            hide,
            summary: 'Send a delivery again now (same webhook-id; one attempt)',
            params: keyParams.extend({ id: z.string().min(1).max(100) }),
            response: { 202: z.object({ delivery_id: z.string() }) },
          },
        },
        async (request, reply) =>
          reply.code(202).send({
            delivery_id: await redeliver(ctx, request.params.key, request.params.id, callerOf(request)),
          }),
      );
      app.get(
        `${P}domains`,
        {
          config: admin,
          schema: {
            tags,
            hide,
            summary: 'Event domains and their event types',
            response: { 200: z.array(domainSchema) },
          },
        },
        async () => EVENT_CATALOG.map((d) => ({ ...d, event_types: [...d.event_types] })),
      );
    }

    // The side calls the console's webhook form makes (spec 001 §7 "Webhooks"). Proxies, builds and
    // release bundles do not exist yet (issues 15 and 19): real, empty answers.
    // `ui/builds/names` and `ui/permissiontargets/buildPatterns` are served by the builds module (issue 19).
    app.post(
      `${UI}ui/permissiontargets/releaseBundles`,
      {
        config: admin,
        schema: {
          tags,
          summary: 'Release bundles matching include/exclude patterns',
          body: z
            .looseObject({
              repositories: z.array(z.string()).optional(),
              includePatterns: z.array(z.string()).optional(),
              excludePatterns: z.array(z.string()).optional(),
            })
            .optional(),
          response: { 200: z.object({ bundles: z.array(z.unknown()) }) },
        },
      },
      async () => ({ bundles: [] }),
    );
    app.get(
      `${UI}ui/releaseBundles/names`,
      {
        config: admin,
        schema: {
          tags,
          summary: 'Release bundle names (none until release bundles land)',
          response: { 200: z.array(z.string()) },
        },
      },
      async () => [],
    );
    app.get(
      `${UI}ui/releaseBundles/environments`,
      {
        config: admin,
        schema: {
          tags,
          summary: 'Distribution environments (none until distribution lands)',
          response: { 200: z.array(z.string()) },
        },
      },
      async () => [],
    );
    // Repositories of one class for the criteria picker: `local/info`, `remote/info`, `federated/info`.
    app.get(
      `${UI}ui/admin/repositories/:rclass/info`,
      {
        config: admin,
        schema: {
          tags,
          summary: 'Repositories of one class (local, remote, federated, virtual)',
          params: z.object({ rclass: z.enum(['local', 'remote', 'federated', 'virtual']) }),
          response: {
            200: z.array(z.object({ repoKey: z.string(), repoType: z.string(), packageType: z.string() })),
          },
        },
      },
      async (request) =>
        (await listRepositoryHeads(ctx.db))
          .filter((r) => r.rclass === request.params.rclass)
          .map((r) => ({ repoKey: r.key, repoType: r.rclass, packageType: r.packageType }))
          .sort((a, b) => a.repoKey.localeCompare(b.repoKey)),
    );
  };
}
