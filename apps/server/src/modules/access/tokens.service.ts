import {
  type IdentityTokenResponse,
  TOKEN_SCOPES,
  type TokenCreateRequest,
  type TokenCreateResponse,
  type TokenInfo,
} from '@granary/contracts';
import type { Principal } from '../../platform/http/access-control.ts';
import { ForbiddenError, InvalidError, NotFoundError } from '../../platform/http/errors.ts';
import type { AccessContext, RequestMeta } from './context.ts';
import { constantTimeEqual, randomSecret, sha256, TOKEN_PREFIX } from './crypto.ts';
import {
  findLiveTokenByHash,
  findTokenById,
  insertToken,
  listTokenRows,
  revokeTokenRow,
  touchToken,
} from './tokens.queries.ts';
import { auditOf, passwordIsExpired, principalOf, requireUser } from './users.service.ts';

const UUID = /^[0-9a-f]{8}-[0-9a-f]{4}-[0-9a-f]{4}-[0-9a-f]{4}-[0-9a-f]{12}$/i;

async function issue(
  ctx: AccessContext,
  meta: RequestMeta,
  opts: {
    username: string;
    scope: string;
    expiresIn?: number;
    description?: string;
    kind: 'access' | 'identity';
  },
) {
  const caller = meta.principal!;
  const owner = await requireUser(ctx.db, opts.username);
  // A token is never more than its owner has; only admins issue tokens for someone else.
  if (owner.id !== caller.id && !caller.admin)
    throw new ForbiddenError('Only an administrator can create a token for another user');
  if (opts.scope === 'applied-permissions/admin') {
    const ownerPrincipal = await principalOf(ctx.db, owner, 'token');
    if (!ownerPrincipal.admin || !caller.admin)
      throw new ForbiddenError('An admin-scoped token needs an administrator');
  }
  const token = randomSecret(TOKEN_PREFIX);
  const expiresAt = opts.expiresIn ? new Date(Date.now() + opts.expiresIn * 1000) : null;
  const row = await insertToken(ctx.db, {
    userId: owner.id,
    tokenHash: sha256(token),
    kind: opts.kind,
    scope: opts.scope,
    description: opts.description ?? null,
    expiresAt,
  });
  await ctx.audit.record({
    ...auditOf(meta),
    action: opts.kind === 'identity' ? 'token.identity.create' : 'token.create',
    target: owner.name,
    result: 'success',
    details: { tokenId: row.id, scope: opts.scope },
  });
  return { row, token, expiresIn: opts.expiresIn || null };
}

/** `POST /api/security/tokens` */
export async function createAccessToken(
  ctx: AccessContext,
  meta: RequestMeta,
  body: TokenCreateRequest,
): Promise<TokenCreateResponse> {
  const scope = body.scope ?? TOKEN_SCOPES[0];
  const { row, token, expiresIn } = await issue(ctx, meta, {
    username: body.username ?? meta.principal!.name,
    scope,
    expiresIn: body.expires_in,
    description: body.description,
    kind: 'access',
  });
  return { token_id: row.id, access_token: token, expires_in: expiresIn, scope, token_type: 'Bearer' };
}

/** `POST ui/userIdentifyToken/{name}` (spec 000 §7): an identity token for clients (docker login, npm). */
export async function createIdentityToken(
  ctx: AccessContext,
  meta: RequestMeta,
  name: string,
  body: { description?: string; expiresIn?: number },
): Promise<IdentityTokenResponse> {
  const { row, token, expiresIn } = await issue(ctx, meta, {
    username: name,
    scope: TOKEN_SCOPES[0],
    expiresIn: body.expiresIn,
    description: body.description,
    kind: 'identity',
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
  ctx.credentials.clear();
  await ctx.audit.record({ ...auditOf(meta), action: 'token.revoke', target: row.id, result: 'success' });
}

export type TokenCheck = { ok: true; principal: Principal } | { ok: false; reason: string };

/**
 * Checks an access or identity token. Refused when unknown, revoked, expired, or when its owner is
 * disabled or has an expired password. With `username` (Basic auth), the token must be that user's.
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
  if (hit.token.expiresAt && hit.token.expiresAt.getTime() <= Date.now())
    return { ok: false, reason: 'token expired' };
  if (username !== undefined && hit.user.name.toLowerCase() !== username.toLowerCase())
    return { ok: false, reason: 'token of another user' };
  if (hit.user.disabled) return { ok: false, reason: 'user disabled' };
  if (passwordIsExpired(hit.user, (await ctx.settings.get()).passwordPolicy))
    return { ok: false, reason: 'password expired' };
  const principal = await principalOf(ctx.db, hit.user, 'token');
  // A token acts with its owner's current rights, never more: a demoted admin's token is demoted too.
  await touchToken(ctx.db, hit.token.id);
  return { ok: true, principal: { ...principal, tokenId: hit.token.id } };
}

export function assertScope(scope: string): void {
  if (!(TOKEN_SCOPES as readonly string[]).includes(scope))
    throw new InvalidError(`Unknown scope '${scope}'`);
}
