import type { FastifyInstance } from 'fastify';
import { ForbiddenError, UnauthorizedError } from './errors.ts';

/**
 * What a route needs, declared in its route config (`config: { access: 'admin' }`).
 * A route that declares nothing needs an administrator: forgetting is never an open door.
 * - `public`: anyone, also anonymous callers;
 * - `authenticated`: any signed-in user (a session, a password or a token);
 * - `admin`: an administrator (directly or through a group with admin privileges).
 * Permissions on repositories, builds and release bundles are asked of the access module's
 * authorizer by the routes that serve them (their answer depends on the path).
 */
export type RouteAccess = 'public' | 'authenticated' | 'admin';

export interface Principal {
  id: string;
  name: string;
  admin: boolean;
  /** Names of the user's groups. */
  groups?: string[];
  /** How the caller proved who it is. */
  via?: 'password' | 'token' | 'session';
  /** The access token used, if any. */
  tokenId?: string;
  /** The console session used, if any. */
  sessionId?: string;
}

declare module 'fastify' {
  interface FastifyContextConfig {
    access?: RouteAccess;
  }
  interface FastifyInstance {
    /** Every route registered after access control, with its declared access (route × role tests read it). */
    routeAccessTable: { method: string; url: string; access: RouteAccess }[];
  }
  interface FastifyRequest {
    /** The authenticated caller, or null for an anonymous request. */
    principal: Principal | null;
  }
}

/** The one hook that enforces every route's declared access; runs after authentication and before body validation, so a caller without access learns nothing of the schema. */
export function registerAccessControl(app: FastifyInstance): void {
  const table: FastifyInstance['routeAccessTable'] = [];
  app.decorate('routeAccessTable', table);
  app.addHook('onRoute', (route) => {
    for (const method of [route.method].flat())
      table.push({ method, url: route.url, access: route.config?.access ?? 'admin' });
  });
  app.addHook('preValidation', async (request) => {
    // Unmatched requests reach the not-found handler, which reveals nothing.
    if (request.is404) return;
    const access = request.routeOptions.config.access ?? 'admin';
    if (access === 'public') return;
    if (!request.principal) throw new UnauthorizedError();
    if (access === 'admin' && !request.principal.admin) throw new ForbiddenError();
  });
}
