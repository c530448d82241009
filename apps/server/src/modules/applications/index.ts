import type { FastifyInstance } from 'fastify';
import type { Platform } from '../../platform/platform.ts';
import type { AccessModule } from '../access/index.ts';
import { applicationRoutes } from './applications.routes.ts';
import type { ApplicationsContext } from './applications.service.ts';

export type { ApplicationsContext } from './applications.service.ts';

/**
 * Application integrations (issue 18): OAuth 2.0 applications admins register, and the
 * authorization server (code + PKCE, consent in the console at `/ui/oauth/consent?request=…`,
 * rotating refresh tokens, RFC 7009 revocation) whose access tokens are Granary's own.
 */
export async function registerApplications(
  app: FastifyInstance,
  platform: Platform,
  access: AccessModule,
): Promise<ApplicationsContext> {
  const ctx: ApplicationsContext = {
    db: platform.database.db,
    access: access.context,
    log: platform.logging.server.child({ component: 'applications' }),
    now: platform.now,
  };
  await app.register(applicationRoutes(ctx));
  return ctx;
}
