import type { FastifyInstance } from 'fastify';
import type { Platform } from '../../platform/platform.ts';
import type { AccessModule } from '../access/index.ts';
import { webhookUrlCheck } from './address.ts';
import { registerDelivery } from './delivery.ts';
import { listSubscriptionRows } from './webhooks.queries.ts';
import { webhookRoutes } from './webhooks.routes.ts';
import type { WebhooksContext } from './webhooks.service.ts';

export type { WebhooksContext } from './webhooks.service.ts';

/**
 * Webhooks (issue 14): subscriptions at `event/api/v1`, the console form's side calls, and the
 * delivery machinery on platform/jobs — an outbox subscriber that matches events to subscriptions
 * and queues one `webhooks.deliver` job per match, the delivery queue (signed, retried, logged), and
 * the log's 30-day pruning.
 */
export async function registerWebhooks(
  app: FastifyInstance,
  platform: Platform,
  access: AccessModule,
): Promise<WebhooksContext> {
  const ctx: WebhooksContext = {
    db: platform.database.db,
    secrets: platform.secrets,
    outbound: platform.outbound,
    log: platform.logging.server.child({ component: 'webhooks' }),
    source: platform.config.baseUrl ?? 'granary',
    now: platform.now,
    metrics: platform.metrics,
    checkUrl: webhookUrlCheck(platform.config.outboundAllowlist),
    audit: (entry) => access.context.audit.record({ ...entry, result: 'success' }),
  };
  registerDelivery(platform.jobs, ctx);
  // Support bundles (issue 15): the subscriptions as stored; their sealed secrets are redacted there.
  app.system.support.registerSupportSource('webhooks', () => listSubscriptionRows(ctx.db));
  await app.register(webhookRoutes(ctx));
  return ctx;
}
