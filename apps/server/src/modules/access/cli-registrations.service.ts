import { randomInt } from 'node:crypto';
import {
  ACCESS_MESSAGES,
  AccessErrorCode,
  CLI_POLL_INTERVAL_SECONDS,
  CLI_REGISTRATION_PAGE,
  CLI_SESSION_PATTERN,
  CLI_SESSION_TTL_MS,
  type CliSessionCreated,
  type CliSessionInfo,
  type CliSessionPoll,
} from '@granary/contracts';
import { ForbiddenError, NotFoundError } from '../../platform/errors.ts';
import { findUserById } from './access.queries.ts';
import { auditOf } from './audit.service.ts';
import {
  confirmCliRegistration,
  deleteCliRegistration,
  deleteExpiredCliRegistrations,
  findLiveCliRegistration,
  insertCliRegistration,
  takeConfirmedCliRegistration,
} from './cli-registrations.queries.ts';
import type { AccessContext, RequestMeta } from './context.ts';
import { randomSecret, sha256, TOKEN_PREFIX } from './crypto.ts';
import { requireFreshOtp } from './login.service.ts';
import {
  assertWithinCaller,
  formatTokenScope,
  fullScopeOf,
  parseTokenScope,
  USER_SCOPE,
} from './token-scope.ts';
import { insertToken } from './tokens.queries.ts';
import { principalOf } from './users.service.ts';

async function defaultExpiry(ctx: AccessContext): Promise<Date | null> {
  const secs = (await ctx.settings.get()).tokenDefaultExpirySecs;
  return secs > 0 ? new Date(Date.now() + secs * 1000) : null;
}

/** Letters a person reads without confusing them (no 0/O, 1/I/L). */
const CODE_ALPHABET = 'ABCDEFGHJKMNPQRSTUVWXYZ23456789';

function userCode(): string {
  const pick = () => CODE_ALPHABET[randomInt(CODE_ALPHABET.length)];
  return `${Array.from({ length: 4 }, pick).join('')}-${Array.from({ length: 4 }, pick).join('')}`;
}

class CliSessionNotFoundError extends NotFoundError {
  constructor() {
    super(ACCESS_MESSAGES.cliSessionNotFound, AccessErrorCode.CliSessionNotFound);
  }
}

async function live(ctx: AccessContext, session: string) {
  if (!CLI_SESSION_PATTERN.test(session)) throw new CliSessionNotFoundError();
  const row = await findLiveCliRegistration(ctx.db, sha256(session), new Date());
  if (!row) throw new CliSessionNotFoundError();
  return row;
}

/**
 * `POST /api/security/cli-registrations` (public): a CLI opens a session of 5 minutes and opens the
 * returned URL in a browser. Only a SHA-256 of the session id is stored; the id is never logged (the
 * request log redacts it, see platform/logger/redact.ts).
 */
export async function openCliSession(
  ctx: AccessContext,
  meta: RequestMeta,
  client: string | undefined,
): Promise<CliSessionCreated> {
  const session = randomSecret();
  const code = userCode();
  const now = new Date();
  const expiresAt = new Date(now.getTime() + CLI_SESSION_TTL_MS);
  await deleteExpiredCliRegistrations(ctx.db, now);
  await insertCliRegistration(ctx.db, {
    sessionHash: sha256(session),
    code,
    client: client ?? null,
    expiresAt,
  });
  await ctx.audit.record({ ...auditOf(meta), action: 'cli.session.open', result: 'success' });
  return {
    session,
    code,
    url: `${meta.baseUrl.replace(/\/+$/, '')}${CLI_REGISTRATION_PAGE}?session=${encodeURIComponent(session)}`,
    expiresAt: expiresAt.toISOString(),
    pollIntervalSeconds: CLI_POLL_INTERVAL_SECONDS,
  };
}

/** `GET access/cli-registration/{session}` (console, signed in): the code and client to compare. */
export async function describeCliSession(ctx: AccessContext, session: string): Promise<CliSessionInfo> {
  const row = await live(ctx, session);
  return {
    code: row.code,
    client: row.client,
    confirmed: row.confirmedAt !== null,
    expiresAt: row.expiresAt.toISOString(),
  };
}

/**
 * `POST access/cli-registration/{session}/confirm`: the signed-in user lets the CLI act as them. It
 * mints a token, so a user with an authenticator adds a fresh code (`X-Granary-OTP`, issue 12 §2).
 */
export async function confirmCliSession(
  ctx: AccessContext,
  meta: RequestMeta,
  session: string,
  otp?: string,
): Promise<void> {
  const caller = meta.principal;
  if (!caller) throw new ForbiddenError('Sign in first');
  // The CLI gets a user-scoped token: a caller signed in with a narrower token cannot hand one out (issue 12 §18).
  assertWithinCaller(caller, parseTokenScope(USER_SCOPE));
  const row = await live(ctx, session);
  if (row.confirmedAt) throw new CliSessionNotFoundError();
  const user = await findUserById(ctx.db, caller.id);
  if (!user) throw new ForbiddenError('Sign in first');
  await requireFreshOtp(ctx, meta, user, otp, 'cli registration');
  if (!(await confirmCliRegistration(ctx.db, sha256(session), caller.id, new Date())))
    throw new CliSessionNotFoundError();
  await ctx.audit.record({ ...auditOf(meta), action: 'cli.session.confirm', result: 'success' });
}

/** `DELETE access/cli-registration/{session}`: the user refuses; the CLI's next poll gets 404. */
export async function cancelCliSession(
  ctx: AccessContext,
  meta: RequestMeta,
  session: string,
): Promise<void> {
  await live(ctx, session);
  await deleteCliRegistration(ctx.db, sha256(session));
  await ctx.audit.record({ ...auditOf(meta), action: 'cli.session.cancel', result: 'success' });
}

/**
 * `GET /api/security/cli-registrations/{session}` (public, the CLI polls): pending until confirmed; then,
 * exactly once, a new access token of the confirming user (their rights, the default expiry, revocable
 * in the token list), and the session is gone. The token is made here, so it is never stored.
 */
export async function pollCliSession(
  ctx: AccessContext,
  meta: RequestMeta,
  session: string,
): Promise<CliSessionPoll> {
  const row = await live(ctx, session);
  if (!row.confirmedAt || !row.userId) return { status: 'pending', expiresAt: row.expiresAt.toISOString() };
  const taken = await takeConfirmedCliRegistration(ctx.db, sha256(session), new Date());
  const user = taken?.userId ? await findUserById(ctx.db, taken.userId) : undefined;
  if (!taken || !user || user.disabled) throw new CliSessionNotFoundError();
  const token = randomSecret(TOKEN_PREFIX);
  const tokenRow = await insertToken(ctx.db, {
    userId: user.id,
    tokenHash: sha256(token),
    kind: 'access',
    // The CLI works as its user does, admin rights included (the confirming caller held no narrower token).
    scope: formatTokenScope(fullScopeOf(await principalOf(ctx.db, user, 'token'))),
    description: `CLI registration${taken.client ? `: ${taken.client}` : ''}`,
    // The default token lifetime (issue 12 §2: a token never expires only when asked for).
    expiresAt: await defaultExpiry(ctx),
  });
  await ctx.audit.record({
    ...auditOf(meta),
    actor: user.name,
    action: 'cli.session.token',
    target: user.name,
    result: 'success',
    details: { tokenId: tokenRow.id },
  });
  return {
    status: 'confirmed',
    username: user.name,
    access_token: token,
    token_id: tokenRow.id,
    token_type: 'Bearer',
  };
}
