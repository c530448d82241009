import type { FastifyInstance } from 'fastify';
import { InvalidError } from '../../platform/errors.ts';
import type { Platform } from '../../platform/platform.ts';
import type { AccessModule } from '../access/index.ts';
import { getBuildRunFiles } from '../builds/builds.api.ts';
import type { DistributionContext } from './context.ts';
import { registerDistributionJobs } from './distribute.ts';
import { distributionRoutes } from './distribution.routes.ts';
import { getSigningKey } from './keys.ts';
import { repositorySigning } from './repository-signing.ts';

export type { DistributionContext } from './context.ts';

/**
 * Release bundles v2 and distribution (issue 19): signing keys (openpgp, private keys sealed),
 * signed immutable bundles whose files are kept by checksum, environments and all-or-nothing
 * promotion, and distribution to other Granary instances, which pull the files in a resumable
 * platform/jobs job, verify every checksum and the signature, then show the bundle in one transaction.
 */
export async function registerDistribution(
  app: FastifyInstance,
  platform: Platform,
  access: AccessModule,
  opts: Pick<DistributionContext, 'buildFiles'> = {},
): Promise<DistributionContext> {
  const ctx: DistributionContext = {
    db: platform.database.db,
    blobs: platform.blobs,
    outbound: platform.outbound,
    repositories: app.repositories,
    authorizer: access.authorizer,
    jobs: platform.jobs,
    log: platform.logging.server.child({ component: 'distribution' }),
    now: platform.now,
    baseUrl: platform.config.baseUrl,
    pullRateBytesPerSec: platform.config.distributionPullRateBytesPerSec,
    buildFiles: (name, number) => getBuildRunFiles(platform.database.db, name, number),
    ...opts,
  };
  registerDistributionJobs(ctx);
  // Issue 23: repositories sign their indexes (Debian Release, RPM repomd.xml) with keys kept here.
  app.repositories.signing = (repoKey, keyName) => repositorySigning(ctx, repoKey, keyName);
  app.repositories.checkSigningKey = async (name) => {
    await getSigningKey(ctx, name).catch(() => {
      throw new InvalidError(`primaryKeyPairRef: no signing key named '${name}'`);
    });
  };
  await app.register(distributionRoutes(ctx));
  return ctx;
}
