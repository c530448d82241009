import { and, eq, inArray } from 'drizzle-orm';
import type { FastifyInstance } from 'fastify';
import type { Platform } from '../../../platform/platform.ts';
import type { ScanListener } from '../model.ts';
import { policyRoutes } from './policies.routes.ts';
import { scanViolations } from './policies.schema.ts';
import { PoliciesService } from './policies.service.ts';

export type { ScanStateLookup } from './policies.service.ts';

declare module 'fastify' {
  interface FastifyInstance {
    /** Policies, watches, violations (issue 16): the scans part and tests reach the service here. */
    scanPolicies: PoliciesService;
  }
}

export { PoliciesService } from './policies.service.ts';

/**
 * Policies, watches, violations, ignore rules and blocking (issue 16): the Xray REST API and the
 * console's calls, the download gate in the repositories core (`beforeDownload`: every client, every
 * format), and the ScanListener the scans part calls after each scan or re-match.
 */
export async function registerPolicies(
  app: FastifyInstance,
  platform: Platform,
): Promise<{ service: PoliciesService; onScan: ScanListener }> {
  const service = new PoliciesService({
    db: platform.database.db,
    now: platform.now,
    log: platform.logging.server.child({ component: 'policies' }),
  });
  app.decorate('scanPolicies', service);
  app.repositories.artifactExtensions.register({
    id: 'scanning.policies',
    beforeDownload: (file) => service.checkDownload(file),
    holdsUpstreamFiles: (repositoryKey) => service.blocksUnscanned(repositoryKey),
    // A removed (or replaced) file's violations go with it, in its transaction; a new scan brings its own.
    removed: async (tx, repositoryId, paths) => {
      if (paths.length === 0) return;
      await tx
        .delete(scanViolations)
        .where(and(eq(scanViolations.repositoryId, repositoryId), inArray(scanViolations.path, paths)));
    },
  });
  await app.register(policyRoutes(service));
  return { service, onScan: (scan) => service.onScan(scan) };
}
