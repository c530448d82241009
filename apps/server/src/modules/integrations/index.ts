import type { FastifyInstance } from 'fastify';
import type { Platform } from '../../platform/platform.ts';
import { AdvisoryDatabase } from '../scanning/advisories/index.ts';
import { integrationsRoutes } from './integrations.routes.ts';
import { type IntegrationsContext, registerScanQueue } from './integrations.service.ts';

export type { IntegrationsContext } from './integrations.service.ts';

/**
 * Git integrations (issue 18): GitHub, GitLab, Bitbucket Cloud and Server connections with sealed
 * tokens, a real test call to the vendor's API through platform/outbound, and with the xray product
 * the vendor's repositories chosen for scanning — a platform/jobs queue reads their dependency
 * manifests through the vendor's API and matches them against the advisory database of modules/scanning.
 */
export async function registerIntegrations(
  app: FastifyInstance,
  platform: Platform,
): Promise<IntegrationsContext> {
  const advisories = new AdvisoryDatabase(platform);
  const ctx: IntegrationsContext = {
    db: platform.database.db,
    secrets: platform.secrets,
    outbound: platform.outbound,
    log: platform.logging.server.child({ component: 'integrations' }),
    now: () => new Date(platform.now()),
    gitEnabled: async () => (await app.system.features.get()).gitRepoScanning,
    match: (queries) => advisories.match(queries),
  };
  registerScanQueue(platform.jobs, ctx);
  await app.register(integrationsRoutes(ctx));
  return ctx;
}
