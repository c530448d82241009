import type {
  IdentityTokenResponse,
  TokenCreateRequest,
  TokenCreateResponse,
  TokenInfo,
} from '@granary/contracts';
import { ForbiddenError, InvalidError, NotFoundError } from '../../platform/errors.ts';
import type { Principal } from '../../platform/http/access-control.ts';
import { findGroupsByNames, groupsOfUser } from './access.queries.ts';
import { auditOf } from './audit.service.ts';
import type { AccessContext, RequestMeta } from './context.ts';
import { constantTimeEqual, randomSecret, sha256, TOKEN_PREFIX } from './crypto.ts';
import { requireFreshOtp } from './login.service.ts';
import {
  applyTokenScope,
  assertWithinCaller,
  defaultScopeFor,
  formatTokenScope,
  fullScopeOf,
  parseTokenScope,
  type TokenScope,
} from './token-scope.ts';
import {
  findLiveTokenByHash,
  findTokenById,
  insertToken,
  listTokenRows,
  revokeTokenRow,
  touchToken,
} from './tokens.queries.ts';
import { passwordIsExpired, principalOf, requireUser } from './users.service.ts';

const UUID = /^[0-9a-f]{8}-[0-9a-f]{4}-[0-9a-f]{4}-[0-9a-f]{4}-[0-9a-f]{12}$/i;

async function issue(
  ctx: AccessContext,
  meta: RequestMeta,
  opts: {
    username: string;
    scope: TokenScope;
    expiresIn?: number;
    description?: string;
    kind: 'access' | 'identity';
  } & StepUp,
) {
  const caller = meta.principal!;
  const owner = await requireUser(ctx.db, opts.username);
  // A token is never more than its owner has, nor more than its creator (issue 12 §18): only admins
  // issue tokens for someone else, and a caller signed in with a token keeps that token's limits.
  if (owner.id !== caller.id && !caller.admin)
    throw new ForbiddenError('Only an administrator can create a token for another user');
  assertWithinCaller(caller, opts.scope);
  if (opts.scope.base === 'admin') {
    const ownerPrincipal = await principalOf(ctx.db, owner, 'token');
    if (!ownerPrincipal.admin) throw new ForbiddenError('An admin-scoped token needs an administrator');
  }
  if (opts.scope.base === 'groups') {
    if (opts.scope.groups.length === 0) throw new InvalidError('Scope: name at least one group');
    const known = await findGroupsByNames(ctx.db, opts.scope.groups);
    const member = new Set((await groupsOfUser(ctx.db, owner.id)).map((g) => g.name.toLowerCase()));
    for (const name of opts.scope.groups) {
      if (!known.some((g) => g.name.toLowerCase() === name.toLowerCase()))
        throw new InvalidError(`Scope: unknown group '${name}'`);
      if (!member.has(name.toLowerCase()))
        throw new InvalidError(`Scope: '${owner.name}' is not a member of group '${name}'`);
    }
  }
  const scope = formatTokenScope(opts.scope);
  const lifetime = await tokenLifetime(ctx, caller, opts.expiresIn);
  // Issue 12 §2: a user with an authenticator makes their own tokens with a fresh one-time code; an
  // admin acting on someone else does not need one, nor does a short-lived token derived from a token.
  if (owner.id === caller.id && !opts.otpVerified && !derivedShortLived(ctx, caller, lifetime))
    await requireFreshOtp(ctx, meta, owner, opts.otp, `${opts.kind} token`);
  const token = randomSecret(TOKEN_PREFIX);
  const expiresAt = lifetime ? new Date(ctx.now() + lifetime * 1000) : null;
  const row = await insertToken(ctx.db, {
    userId: owner.id,
    tokenHash: sha256(token),
    kind: opts.kind,
    scope,
    description: opts.description ?? null,
    expiresAt,
  });
  await ctx.audit.record({
    ...auditOf(meta),
    action: opts.kind === 'identity' ? 'token.identity.create' : 'token.create',
    target: owner.name,
    result: 'success',
    details: { tokenId: row.id, scope },
  });
  return { row, token, scope, expiresIn: lifetime };
}

/** A fresh one-time code for the token's owner (`X-Granary-OTP`), or a caller that just proved one. */
export interface StepUp {
  otp?: string;
  /** The code was checked earlier in this request (npm login's `npm-otp`). */
  otpVerified?: boolean;
}

/** The longest a token made from another token may live without a one-time code (docker login's). */
export const DERIVED_TOKEN_MAX_SECS = 3600;

function derivedShortLived(ctx: AccessContext, caller: Principal, lifetime: number | null): boolean {
  if (caller.via !== 'token' || lifetime === null || lifetime > DERIVED_TOKEN_MAX_SECS) return false;
  return !caller.tokenExpiresAt || ctx.now() + lifetime * 1000 <= caller.tokenExpiresAt;
}

/**
 * A token's lifetime in seconds, or null for never (issue 12 §2, Artifactory's rules): no
 * `expires_in` gets the default expiry (setting `tokenDefaultExpirySecs`, a year); `0` means never
 * and must be asked for. A non-admin cannot pass `tokenMaxExpirySecs` when the admin set one.
 */
async function tokenLifetime(ctx: AccessContext, caller: Principal, asked: number | undefined) {
  const { tokenDefaultExpirySecs: fallback, tokenMaxExpirySecs: max } = await ctx.settings.get();
  const limited = !caller.admin && max > 0;
  let secs = asked ?? fallback;
  if (asked === undefined && limited && (secs === 0 || secs > max)) secs = max;
  if (limited && (secs === 0 || secs > max))
    throw new InvalidError(
      `expires_in: at most ${max} seconds (the administrator's limit for tokens; 0, never expiring, is not allowed)`,
    );
  return secs === 0 ? null : secs;
}

/** `POST /api/security/tokens` */
export async function createAccessToken(
  ctx: AccessContext,
  meta: RequestMeta,
  body: TokenCreateRequest,
  stepUp: StepUp = {},
): Promise<TokenCreateResponse> {
  const wanted = body.scope ? parseTokenScope(body.scope) : defaultScopeFor(meta.principal!);
  const { row, token, scope, expiresIn } = await issue(ctx, meta, {
    username: body.username ?? meta.principal!.name,
    scope: wanted,
    expiresIn: body.expires_in,
    description: body.description,
    kind: 'access',
    ...stepUp,
  });
  return { token_id: row.id, access_token: token, expires_in: expiresIn, scope, token_type: 'Bearer' };
}

/** `POST ui/userIdentifyToken/{name}` (spec 000 §7): an identity token for clients (docker login, npm). */
export async function createIdentityToken(
  ctx: AccessContext,
  meta: RequestMeta,
  name: string,
  body: { description?: string; expiresIn?: number },
  stepUp: StepUp = {},
): Promise<IdentityTokenResponse> {
  const { row, token, expiresIn } = await issue(ctx, meta, {
    username: name,
    // What Set Me Up hands to docker and npm: the client works as its user does (issue 12 §18 keeps
    // it within the caller's own scope).
    scope: fullScopeOf(meta.principal!),
    expiresIn: body.expiresIn,
    description: body.description,
    kind: 'identity',
    ...stepUp,
  });
  return { token_id: row.id, access_token: token, reference_token: token, expires_in: expiresIn };
}

/** `GET /api/security/tokens`: the caller's live tokens; an admin sees every user's. */
export async function listTokens(ctx: AccessContext, principal: Principal): Promise<TokenInfo[]> {
  const rows = await listTokenRows(ctx.db, principal.admin ? undefined : principal.id);
  const secs = (d: Date | null) => (d ? Math.floor(d.getTime() / 1000) : null);
  return rows.map(({ token, subject }) => ({
    token_id: token.id,
    subject,
    scope: token.scope,
    description: token.description,
    expiry: secs(token.expiresAt),
    issued_at: secs(token.createdAt)!,
    last_used: secs(token.lastUsedAt),
    kind: token.kind === 'identity' || token.kind === 'apikey' ? token.kind : 'access',
  }));
}

/** `DELETE /api/security/tokens/{id}`: the owner or an admin revokes; it stops working at once on this node. */
export async function revokeToken(ctx: AccessContext, meta: RequestMeta, id: string): Promise<void> {
  const row = UUID.test(id) ? await findTokenById(ctx.db, id) : undefined;
  const caller = meta.principal!;
  if (!row || row.revokedAt || (row.userId !== caller.id && !caller.admin))
    throw new NotFoundError(`Token '${id}' not found`);
  await revokeTokenRow(ctx.db, row.id);
  // Here at once; on the other nodes as soon as they hear (LISTEN/NOTIFY).
  await ctx.credentials.clear();
  await ctx.audit.record({ ...auditOf(meta), action: 'token.revoke', target: row.id, result: 'success' });
}

export type TokenCheck = { ok: true; principal: Principal } | { ok: false; reason: string };

/**
 * Checks an access or identity token. Refused when unknown, revoked, expired, or when its owner is
 * disabled or has an expired password. With `username` (Basic auth), the token must be that user's.
 * The principal has what the token's scope leaves of its owner's current rights, and says when the
 * token expires (the credential cache keeps it no longer).
 */
export async function authenticateToken(
  ctx: AccessContext,
  token: string,
  username?: string,
): Promise<TokenCheck> {
  if (!token.startsWith(TOKEN_PREFIX)) return { ok: false, reason: 'not a token' };
  const hash = sha256(token);
  const hit = await findLiveTokenByHash(ctx.db, hash);
  if (!hit || !constantTimeEqual(hit.token.tokenHash, hash))
    return { ok: false, reason: 'unknown or revoked token' };
  if (hit.token.expiresAt && hit.token.expiresAt.getTime() <= ctx.now())
    return { ok: false, reason: 'token expired' };
  if (username !== undefined && hit.user.name.toLowerCase() !== username.toLowerCase())
    return { ok: false, reason: 'token of another user' };
  if (hit.user.disabled) return { ok: false, reason: 'user disabled' };
  if (passwordIsExpired(hit.user, (await ctx.settings.get()).passwordPolicy))
    return { ok: false, reason: 'password expired' };
  let scope: TokenScope;
  try {
    scope = parseTokenScope(hit.token.scope);
  } catch {
    return { ok: false, reason: 'unknown token scope' };
  }
  // A token acts with its owner's current rights, never more: a demoted admin's token is demoted too.
  const principal = applyTokenScope(await principalOf(ctx.db, hit.user, 'token'), scope);
  await touchToken(ctx.db, hit.token.id);
  const tokenExpiresAt = hit.token.expiresAt?.getTime();
  return { ok: true, principal: { ...principal, tokenId: hit.token.id, tokenExpiresAt } };
}

/**
 * Issue 18: an access token for an OAuth application a user approved (modules/applications). No
 * caller: the user's consent is the authority, and the scope is at most `applied-permissions/user`,
 * so the token acts with the user's current rights and never as admin.
 */
export async function issueApplicationToken(
  ctx: AccessContext,
  opts: { userId: string; scope: string; expiresInSecs: number; description: string },
): Promise<{ id: string; token: string }> {
  if (parseTokenScope(opts.scope).base !== 'user')
    throw new ForbiddenError('An application token acts with the user scope only');
  const token = randomSecret(TOKEN_PREFIX);
  const row = await insertToken(ctx.db, {
    userId: opts.userId,
    tokenHash: sha256(token),
    kind: 'access',
    scope: opts.scope,
    description: opts.description,
    expiresAt: new Date(ctx.now() + opts.expiresInSecs * 1000),
  });
  return { id: row.id, token };
}

/** Issue 18: revokes the tokens of a revoked application grant; they stop working at once (every node). */
export async function revokeApplicationTokens(ctx: AccessContext, ids: string[]): Promise<void> {
  for (const id of ids) await revokeTokenRow(ctx.db, id);
  if (ids.length > 0) await ctx.credentials.clear();
}
