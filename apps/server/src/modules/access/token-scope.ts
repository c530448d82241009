import { ForbiddenError, InvalidError } from '../../platform/errors.ts';
import type { Principal, PrincipalScope } from '../../platform/http/access-control.ts';

/**
 * An access token's scope (README "Token scopes"): space-separated items, Artifactory's
 * `applied-permissions/…` first, then Granary's own narrowing items.
 * - `applied-permissions/admin`: administrator rights (an admin owner only, minted by an admin);
 * - `applied-permissions/user`: the owner's own permissions, never admin rights (even an admin's);
 * - `applied-permissions/groups:g1,g2`: only those groups' permissions (of the ones the owner is in),
 *   never admin rights;
 * - `granary/read-only`: only reads (Artifactory's project roles have no instance-wide equivalent);
 * - `granary/repositories:k1,k2`: only those repositories (not with the admin scope);
 * - `system:metrics:r` (Artifactory's): may also read `/api/v1/metrics` (an administrator mints it).
 */
export interface TokenScope {
  base: 'admin' | 'user' | 'groups';
  /** For `groups`: the named groups, as written. */
  groups: string[];
  readOnly: boolean;
  /** Repository keys (lower case), or undefined for every repository. */
  repositories?: string[];
  /** `system:metrics:r`: may read the Prometheus metrics. */
  metrics?: boolean;
}

export const USER_SCOPE = 'applied-permissions/user';
export const ADMIN_SCOPE = 'applied-permissions/admin';
const GROUPS_PREFIX = 'applied-permissions/groups:';
const READ_ONLY = 'granary/read-only';
const REPOSITORIES_PREFIX = 'granary/repositories:';
export const METRICS_SCOPE = 'system:metrics:r';
const NAME = /^[A-Za-z0-9][A-Za-z0-9._@-]*$/;

function names(list: string, what: string): string[] {
  const items = list.split(',');
  if (items.length === 0 || items.some((n) => !NAME.test(n)))
    throw new InvalidError(`Scope: '${list}' is not a comma-separated list of ${what}`);
  return [...new Set(items)];
}

/** Parses a scope string; a malformed or unknown item is a 400 naming it. */
export function parseTokenScope(raw: string): TokenScope {
  let base: TokenScope['base'] | undefined;
  let groups: string[] = [];
  let readOnly = false;
  let repositories: string[] | undefined;
  let metrics = false;
  for (const item of raw.trim().split(/\s+/)) {
    let itemBase: TokenScope['base'] | undefined;
    if (item === ADMIN_SCOPE) itemBase = 'admin';
    else if (item === USER_SCOPE) itemBase = 'user';
    else if (item.startsWith(GROUPS_PREFIX)) {
      itemBase = 'groups';
      groups = names(item.slice(GROUPS_PREFIX.length), 'group names');
    } else if (item === READ_ONLY) readOnly = true;
    else if (item === METRICS_SCOPE && !metrics) metrics = true;
    else if (item.startsWith(REPOSITORIES_PREFIX) && !repositories)
      repositories = names(item.slice(REPOSITORIES_PREFIX.length), 'repository keys').map((k) =>
        k.toLowerCase(),
      );
    else throw new InvalidError(`Scope: unknown or repeated item '${item}'`);
    if (itemBase) {
      if (base) throw new InvalidError('Scope: name exactly one applied-permissions/… item');
      base = itemBase;
    }
  }
  if (!base) throw new InvalidError('Scope: name exactly one applied-permissions/… item');
  if (base === 'admin' && repositories)
    throw new InvalidError('Scope: an admin-scoped token cannot be limited to repositories');
  return { base, groups, readOnly, repositories, ...(metrics ? { metrics } : {}) };
}

/** The scope written the one way it is stored and answered. */
export function formatTokenScope(scope: TokenScope): string {
  const items = [
    scope.base === 'groups'
      ? `${GROUPS_PREFIX}${scope.groups.join(',')}`
      : `applied-permissions/${scope.base}`,
  ];
  if (scope.readOnly) items.push(READ_ONLY);
  if (scope.repositories) items.push(`${REPOSITORIES_PREFIX}${scope.repositories.join(',')}`);
  if (scope.metrics) items.push(METRICS_SCOPE);
  return items.join(' ');
}

/** What a token of this scope leaves of its owner's full rights (`owner` as `principalOf` built it). */
export function applyTokenScope(owner: Principal, scope: TokenScope): Principal {
  const limits: PrincipalScope = { raw: formatTokenScope(scope) };
  if (scope.readOnly) limits.readOnly = true;
  if (scope.repositories) limits.repositories = scope.repositories;
  if (scope.metrics) limits.metrics = true;
  if (scope.base === 'admin') return { ...owner, scope: limits };
  if (scope.base === 'user') return { ...owner, admin: false, scope: limits };
  const named = new Set(scope.groups.map((g) => g.toLowerCase()));
  return {
    ...owner,
    admin: false,
    groups: (owner.groups ?? []).filter((g) => named.has(g.toLowerCase())),
    scope: { ...limits, groupsOnly: true },
  };
}

/**
 * The scope a token gets when none is asked for: Artifactory's `applied-permissions/user`, or, for a
 * caller signed in with a narrower token, that token's own limits (a token never mints a wider one).
 */
export function defaultScopeFor(caller: Principal): TokenScope {
  const own = callerScope(caller);
  if (!own) return { base: 'user', groups: [], readOnly: false };
  return own.base === 'admin' ? { ...own, base: 'user' } : own;
}

/** The caller's token scope, its groups being those it still has (its owner may have left some). */
function callerScope(caller: Principal): TokenScope | undefined {
  if (!caller.scope) return undefined;
  const own = parseTokenScope(caller.scope.raw);
  return own.base === 'groups' ? { ...own, groups: caller.groups ?? [] } : own;
}

/** The scope that carries all of the caller's rights (a client's own login: `docker login`, `npm login`). */
export function fullScopeOf(caller: Principal): TokenScope {
  return callerScope(caller) ?? { base: caller.admin ? 'admin' : 'user', groups: [], readOnly: false };
}

/**
 * A caller never mints a token wider than its own rights: only an administrator asks for the admin
 * scope or for groups it is not in, and a caller signed in with a token keeps that token's limits
 * (a groups-scoped token mints only for some of its groups, a read-only one only read-only tokens,
 * a repository-limited one only for some of its repositories).
 */
export function assertWithinCaller(caller: Principal, wanted: TokenScope): void {
  if (wanted.base === 'admin' && !caller.admin)
    throw new ForbiddenError('An admin-scoped token needs an administrator');
  if (wanted.metrics && !caller.admin && !caller.scope?.metrics)
    throw new ForbiddenError(`A token with ${METRICS_SCOPE} needs an administrator`);
  if (wanted.base === 'groups' && !caller.admin) {
    const mine = new Set((caller.groups ?? []).map((g) => g.toLowerCase()));
    const foreign = wanted.groups.filter((g) => !mine.has(g.toLowerCase()));
    if (foreign.length > 0)
      throw new ForbiddenError(
        `Not a member of group: ${foreign.join(', ')} (a token is never more than its creator)`,
      );
  }
  const own = caller.scope;
  if (!own) return;
  if (own.groupsOnly && wanted.base !== 'groups')
    throw new ForbiddenError('A groups-scoped token can only create tokens scoped to some of its groups');
  if (own.readOnly && !wanted.readOnly)
    throw new ForbiddenError('A read-only token can only create read-only tokens');
  if (own.repositories) {
    const allowed = new Set(own.repositories);
    if (!wanted.repositories || wanted.repositories.some((k) => !allowed.has(k)))
      throw new ForbiddenError(
        'A repository-limited token can only create tokens for some of its repositories',
      );
  }
}
