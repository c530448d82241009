import type { NodeStatus } from '@granary/contracts';
import type { FastifyInstance } from 'fastify';
import type { Platform } from '../../../platform/platform.ts';
import type { AccessModule } from '../../access/index.ts';
import { readVersion } from '../version.ts';
import { supportRoutes } from './support.routes.ts';
import { SupportBundles } from './support.service.ts';

export {
  SUPPORT_BUNDLE_QUEUE,
  SupportBundles,
  type SupportSource,
  type SupportSourceOptions,
} from './support.service.ts';

/**
 * Support bundles (issue 15): the service, with the parts the system module knows itself (the
 * security settings); other modules add theirs with `app.system.support.registerSupportSource`.
 */
export function createSupportBundles(
  platform: Platform,
  access: AccessModule,
  nodeId: string,
): SupportBundles {
  const { config, database, blobs, logging, secrets, jobs } = platform;
  const support = new SupportBundles({
    db: database.db,
    jobs,
    nodeId,
    home: config.home,
    config,
    secrets,
    log: logging.server.child({ component: 'support' }),
    flushLogs: () => logging.flush(),
    logsDir: logging.dir,
    databaseKind: database.kind,
    blobStoreKind: blobs.kind,
    version: readVersion(),
  });
  support.registerSupportSource('security', async () => ({ settings: await access.context.settings.get() }));
  return support;
}

/** Mounts the routes and starts the service (fails this node's interrupted bundles, registers the queue). */
export async function registerSupport(
  app: FastifyInstance,
  support: SupportBundles,
  platform: Platform,
  nodeId: string,
  nodes: () => Promise<NodeStatus[]>,
): Promise<void> {
  await app.register(supportRoutes(support, { nodeId, baseUrl: platform.config.baseUrl, nodes }));
  await support.start();
}
