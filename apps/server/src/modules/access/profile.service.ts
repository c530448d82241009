import {
  ACCESS_MESSAGES,
  AccessErrorCode,
  type UserApiKeyInfo,
  type UserData,
  type UserProfileUpdate,
} from '@granary/contracts';
import { ForbiddenError, UnauthorizedError } from '../../platform/errors.ts';
import type { Executor } from '../../platform/events/index.ts';
import { findUserById, type UserRow, updateUserRow } from './access.queries.ts';
import { auditOf } from './audit.service.ts';
import type { AccessContext, RequestMeta } from './context.ts';
import { randomSecret, sha256, TOKEN_PREFIX } from './crypto.ts';
import { checkPassword, LockedOutError, requireFreshOtp, resetMfa, userDataOf } from './login.service.ts';
import { formatTokenScope, fullScopeOf } from './token-scope.ts';
import { insertToken, liveTokensOfKind, revokeTokensOfKind } from './tokens.queries.ts';

/** The kind of access token an API key is (spec 001 §7): long-lived, personal, one per user. */
export const API_KEY_KIND = 'apikey';
const SSO_PASSWORDLESS_REALMS = new Set(['oauth', 'saml', 'http']);

/**
 * The signed-in user proves it is them with their current password (throttled like a sign-in). An expired
 * password still proves it (the profile is where it gets changed).
 */
async function reauthenticate(
  ctx: AccessContext,
  meta: RequestMeta,
  password: string,
  channel: string,
): Promise<UserRow> {
  const caller = meta.principal;
  if (!caller) throw new UnauthorizedError();
  const user = await findUserById(ctx.db, caller.id);
  if (!user) throw new UnauthorizedError();
  // spec 000 §6: a user of an SSO realm (OAuth, SAML, HTTP SSO) has no Granary password; signed in
  // through its identity provider, its console session proves it with an empty password (issue 20).
  if (
    password === '' &&
    !user.passwordHash &&
    SSO_PASSWORDLESS_REALMS.has(user.realm) &&
    caller.via === 'session'
  )
    return user;
  const check = await checkPassword(ctx, meta, user.name, password, channel);
  if (check.ok || check.reason === 'password expired') return user;
  if (check.reason === 'locked') throw new LockedOutError(check.until);
  throw new UnauthorizedError(ACCESS_MESSAGES.wrongOldPassword, AccessErrorCode.BadCredentials);
}

/**
 * `POST ui/userProfile` (spec 000 §7 "password"; spec 001 §7 "POST user profile with password"): with
 * the current password, the user changes their own email when the admin left the profile updatable.
 * Without `email` it only checks the password. Answers the user data.
 */
export async function updateOwnProfile(
  ctx: AccessContext,
  meta: RequestMeta,
  body: UserProfileUpdate,
): Promise<UserData> {
  const audit = { ...auditOf(meta), action: 'profile.update', target: meta.principal?.name ?? null };
  let user: UserRow;
  try {
    user = await reauthenticate(ctx, meta, body.password, 'profile');
    if (body.email !== undefined && !user.profileUpdatable)
      throw new ForbiddenError(ACCESS_MESSAGES.profileNotUpdatable, AccessErrorCode.ProfileNotUpdatable);
  } catch (err) {
    await ctx.audit.record({ ...audit, result: 'failure', details: { reason: (err as Error).message } });
    throw err;
  }
  if (body.email !== undefined) {
    const email = body.email === '' ? null : body.email;
    await updateUserRow(ctx.db, user.id, { email });
    await ctx.audit.record({ ...audit, result: 'success', details: { changed: ['email'] } });
  }
  return userDataOf(ctx, (await findUserById(ctx.db, user.id))!, 'NONE');
}

/**
 * `POST auth/mfa/reset` {password, otp}: the user removes their own authenticator, with the password
 * and a fresh code from that authenticator (issue 12 §2: the password alone is not two factors). A
 * user who lost the authenticator asks an administrator (`DELETE /api/security/users/{name}/mfa`).
 */
export async function resetOwnMfa(
  ctx: AccessContext,
  meta: RequestMeta,
  password: string,
  otp: string | undefined,
): Promise<void> {
  const audit = { ...auditOf(meta), action: 'mfa.reset', target: meta.principal?.name ?? null };
  try {
    const user = await reauthenticate(ctx, meta, password, 'mfa-reset');
    await requireFreshOtp(ctx, meta, user, otp, 'mfa reset');
    await resetMfa(ctx, meta, user);
  } catch (err) {
    await ctx.audit.record({ ...audit, result: 'failure', details: { reason: (err as Error).message } });
    throw err;
  }
}

/** `GET ui/userApiKey`: whether the signed-in user has an API key (only its hash is kept, so never the key). */
export async function apiKeyInfo(ctx: AccessContext, meta: RequestMeta): Promise<UserApiKeyInfo> {
  const [row] = await liveTokensOfKind(ctx.db, meta.principal!.id, API_KEY_KIND);
  return {
    exists: row !== undefined,
    createdAt: row?.createdAt.toISOString() ?? null,
    lastUsed: row?.lastUsedAt?.toISOString() ?? null,
  };
}

function parseBasic(header: string | undefined): { name: string; password: string } | null {
  const m = /^Basic\s+([A-Za-z0-9+/=]+)\s*$/i.exec(header ?? '');
  if (!m) return null;
  const decoded = Buffer.from(m[1]!, 'base64').toString('utf8');
  const colon = decoded.indexOf(':');
  return colon > 0 ? { name: decoded.slice(0, colon), password: decoded.slice(colon + 1) } : null;
}

/**
 * `GET apiKey/{username}` with the re-authentication header carrying Basic credentials (spec 001 §7):
 * the signed-in user, re-proving their password, gets a new API key; the previous one stops working.
 * Only for oneself: the header must name the signed-in user and the path's user.
 */
export async function issueApiKey(
  ctx: AccessContext,
  meta: RequestMeta,
  username: string,
  reauthentication: string | undefined,
  otp?: string,
): Promise<{ apiKey: string }> {
  const caller = meta.principal;
  if (!caller) throw new UnauthorizedError();
  const basic = parseBasic(reauthentication);
  const audit = { ...auditOf(meta), action: 'apikey.create', target: username };
  if (
    !basic ||
    basic.name.toLowerCase() !== caller.name.toLowerCase() ||
    username.toLowerCase() !== caller.name.toLowerCase()
  ) {
    await ctx.audit.record({ ...audit, result: 'denied', details: { reason: 'not the signed-in user' } });
    throw new ForbiddenError('An API key can be fetched only for yourself, with your password');
  }
  let user: UserRow;
  try {
    user = await reauthenticate(ctx, meta, basic.password, 'api-key');
    // A never-expiring credential: a user with an authenticator adds a fresh code (issue 12 §2).
    await requireFreshOtp(ctx, meta, user, otp, 'api key');
  } catch (err) {
    await ctx.audit.record({ ...audit, result: 'failure', details: { reason: (err as Error).message } });
    throw err;
  }
  const apiKey = randomSecret(TOKEN_PREFIX);
  const row = await ctx.db.transaction(async (tx) => {
    const db: Executor = tx;
    await revokeTokensOfKind(db, user.id, API_KEY_KIND);
    return insertToken(db, {
      userId: user.id,
      tokenHash: sha256(apiKey),
      kind: API_KEY_KIND,
      // An API key is the user's own credential: it carries all of the user's rights, admin included.
      scope: formatTokenScope(fullScopeOf(caller)),
      description: 'API key',
      expiresAt: null,
    });
  });
  ctx.credentials.clear();
  await ctx.audit.record({ ...audit, result: 'success', details: { tokenId: row.id } });
  return { apiKey };
}

/** `DELETE ui/userApiKey`: revokes the signed-in user's API key. */
export async function revokeApiKey(ctx: AccessContext, meta: RequestMeta): Promise<void> {
  const revoked = await revokeTokensOfKind(ctx.db, meta.principal!.id, API_KEY_KIND);
  ctx.credentials.clear();
  await ctx.audit.record({
    ...auditOf(meta),
    action: 'apikey.revoke',
    target: meta.principal!.name,
    result: 'success',
    details: { revoked },
  });
}
