import type { FastifyInstance } from 'fastify';
import type { Logger } from 'pino';
import type { Db, NotifyChannel } from '../../platform/db/index.ts';
import { accessRoutes } from './access.routes.ts';
import { registerAuthentication } from './authentication.ts';
import { type AccessContext, createAccessContext, shareAccessInvalidation } from './context.ts';
import { Authorizer } from './permissions.service.ts';
import { ensureDefaultProject } from './projects.service.ts';

export type { AccessContext } from './context.ts';
export { Authorizer, type ResourceRef } from './permissions.service.ts';

/** What other modules use of access: the one permission question. */
export interface AccessModule {
  context: AccessContext;
  /** `await app.access.authorizer.can(request.principal, 'read', {key, rclass, path})` */
  authorizer: Authorizer;
}

declare module 'fastify' {
  interface FastifyInstance {
    access: AccessModule;
  }
}

/**
 * Authentication hook (before access control is registered) and the module's context. With a
 * `channel`, cache invalidation is shared with the other nodes from start-up to close.
 */
export function registerAccessAuthentication(
  app: FastifyInstance,
  db: Db,
  security: Logger,
  baseUrl?: string,
  opts: { channel?: NotifyChannel; now?: () => number } = {},
): AccessModule {
  const context = createAccessContext(db, security, baseUrl, opts.now);
  const module: AccessModule = { context, authorizer: new Authorizer(context) };
  app.decorate('access', module);
  registerAuthentication(app, context);
  const channel = opts.channel;
  if (channel) {
    let stop: (() => Promise<void>) | undefined;
    app.addHook('onReady', async () => {
      stop = await shareAccessInvalidation(context, channel);
    });
    app.addHook('onClose', async () => {
      await stop?.().catch(() => {});
    });
  }
  return module;
}

export async function registerAccessRoutes(app: FastifyInstance, module: AccessModule): Promise<void> {
  await app.register(accessRoutes(module.context));
  // spec 000 §3: the default project exists from the first start (idempotent on every node).
  await ensureDefaultProject(module.context);
}
