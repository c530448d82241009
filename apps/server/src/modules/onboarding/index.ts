import type { FastifyInstance } from 'fastify';
import type { Platform } from '../../platform/platform.ts';
import type { AccessModule } from '../access/index.ts';
import type { RepositoriesContext } from '../repositories/repositories.api.ts';
import { gettingStartedRoutes } from './getting-started.ts';
import { onboardingRoutes } from './onboarding.routes.ts';
import { parseUpstreams } from './quick-repos.ts';
import { QuickStartWatch, readMayMatter, registerQuickStartObserver } from './quick-start.ts';
import { placeTrialContent, upstreamReachable } from './trial-content.ts';

/**
 * Onboarding and the quick-start wizard (issue 17): the questionnaire, quick repositories (with Granary's trial
 * content when offline), quick-start sessions whose flags flip from real client traffic.
 */
export async function registerOnboarding(
  app: FastifyInstance,
  platform: Platform,
  access: AccessModule,
  repositories: RepositoriesContext,
): Promise<void> {
  const db = platform.database.db;
  const log = platform.logging.server;
  const mode = platform.config.onboardingTrialContent;
  const watch = new QuickStartWatch(platform.database.channel);
  await watch.listen();
  app.addHook('onClose', () => watch.close().catch(() => {}));
  registerQuickStartObserver(app, db, log, watch);
  // The observer must see the requests of a user whose quick start may be open.
  platform.responseCache.decline((read) => readMayMatter(watch, read));
  await app.register(gettingStartedRoutes(db));
  await app.register(
    onboardingRoutes({
      db,
      formats: repositories.formats,
      upstreams: parseUpstreams(platform.config.onboardingUpstreams),
      audit: access.context.audit,
      watch,
      async trialContent(type, localKey, upstream) {
        if (mode === 'never') return;
        if (mode === 'auto' && (await upstreamReachable(platform.outbound, upstream))) return;
        if (await placeTrialContent(repositories, log, type, localKey))
          log.info(
            { type, repo: localKey, mode },
            'quick setup: trial content placed in the local repository',
          );
      },
    }),
  );
}
