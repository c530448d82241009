import type { FastifyInstance } from 'fastify';
import { ForbiddenError, UnauthorizedError } from './errors.ts';

/**
 * What a route needs, declared in its route config (`config: { access: 'admin' }`).
 * A route that declares nothing needs an administrator: forgetting is never an open door.
 */
export type RouteAccess = 'public' | 'authenticated' | 'admin';

export interface Principal {
  id: string;
  name: string;
  admin: boolean;
}

declare module 'fastify' {
  interface FastifyContextConfig {
    access?: RouteAccess;
  }
  interface FastifyRequest {
    /** The authenticated caller, or null for an anonymous request. */
    principal: Principal | null;
  }
}

/** The one hook that enforces every route's declared access; runs after authentication. */
export function registerAccessControl(app: FastifyInstance): void {
  app.addHook('preHandler', async (request) => {
    // Unmatched requests reach the not-found handler, which reveals nothing.
    if (request.is404) return;
    const access = request.routeOptions.config.access ?? 'admin';
    if (access === 'public') return;
    if (!request.principal) throw new UnauthorizedError();
    if (access === 'admin' && !request.principal.admin) throw new ForbiddenError();
  });
}
