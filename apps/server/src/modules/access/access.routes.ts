import type { FastifyPluginAsyncZod } from '@fastify/type-provider-zod';
import { accountRoutes } from './accounts.routes.ts';
import { consoleAuthRoutes } from './auth.routes.ts';
import type { AccessContext } from './context.ts';
import { passwordRoutes } from './passwords.routes.ts';
import { projectRoutes } from './projects.routes.ts';
import { securityRoutes } from './security.routes.ts';
import { samlRoutes } from './sso/saml.routes.ts';
import { ssoRoutes } from './sso/sso.routes.ts';

/** Every route of the access module: the REST API under /api/security and the console's sign-in calls. */
export function accessRoutes(ctx: AccessContext): FastifyPluginAsyncZod {
  return async (app) => {
    await app.register(securityRoutes(ctx));
    await app.register(consoleAuthRoutes(ctx));
    await app.register(passwordRoutes(ctx));
    await app.register(projectRoutes(ctx));
    await app.register(accountRoutes(ctx));
    await app.register(samlRoutes(ctx));
    await app.register(ssoRoutes(ctx));
  };
}
