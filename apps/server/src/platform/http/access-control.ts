import type { FastifyInstance } from 'fastify';
import { ForbiddenError, UnauthorizedError } from '../errors.ts';

/**
 * What a route needs, declared in its route config (`config: { access: 'admin' }`).
 * A route that declares nothing needs an administrator: forgetting is never an open door.
 * - `public`: anyone, also anonymous callers;
 * - `authenticated`: any signed-in user (a session, a password or a token);
 * - `admin`: an administrator (directly or through a group with admin privileges).
 * Permissions on repositories, builds and release bundles are asked of the access module's
 * authorizer by the routes that serve them (their answer depends on the path).
 * A caller signed in with a scoped access token carries the scope (`Principal.scope`): its `admin`
 * is already what the scope allows, and a read-only token makes no state-changing request here.
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
  /** When the access token used stops working (epoch ms), if it expires. */
  tokenExpiresAt?: number;
  /** What the access token used limits this caller to; absent for a password or a session (the user's full rights). */
  scope?: PrincipalScope;
}

/**
 * What an access token's scope leaves of its owner's rights (README "Token scopes"). `admin` on the
 * principal already says whether the scope grants administration; these say what else is withheld.
 */
export interface PrincipalScope {
  /** The scope as issued, e.g. `applied-permissions/groups:devs granary/read-only`. */
  raw: string;
  /** Only the token's groups' permissions count (`applied-permissions/groups:…`), not grants to the user. */
  groupsOnly?: boolean;
  /** Only the `read` action, and no state-changing request on a route that needs a signed-in caller. */
  readOnly?: boolean;
  /** Only these repositories (lower-case keys); no build or release-bundle permission. */
  repositories?: string[];
  /** `system:metrics:r`: may read `/api/v1/metrics` although not an administrator. */
  metrics?: boolean;
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

const SAFE_METHODS = new Set(['GET', 'HEAD', 'OPTIONS']);

/** The one hook that enforces every route's declared access; runs after authentication and before body validation, so a caller without access learns nothing of the schema. */
export function registerAccessControl(app: FastifyInstance): void {
  const table: FastifyInstance['routeAccessTable'] = [];
  app.decorate('routeAccessTable', table);
  app.addHook('onRoute', (route) => {
    for (const method of [route.method].flat())
      table.push({ method, url: route.url, access: route.config?.access ?? 'admin' });
  });
  // A callback hook: it never waits, and an async one cost a promise on every request (issue 24).
  app.addHook('preValidation', (request, _reply, done) => {
    // Unmatched requests reach the not-found handler, which reveals nothing.
    if (request.is404) return done();
    const access = request.routeOptions.config.access ?? 'admin';
    if (access === 'public') return done();
    if (!request.principal) return done(new UnauthorizedError());
    if (access === 'admin' && !request.principal.admin) return done(new ForbiddenError());
    if (request.principal.scope?.readOnly && !SAFE_METHODS.has(request.method))
      return done(new ForbiddenError('This access token is read-only'));
    done();
  });
}
