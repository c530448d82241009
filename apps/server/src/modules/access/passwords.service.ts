import {
  ACCESS_MESSAGES,
  AccessErrorCode,
  type ChangePasswordRequest,
  RESET_KEY_TTL_MS,
  RESET_PASSWORD_PAGE,
} from '@granary/contracts';
import type { Db } from '../../platform/db/index.ts';
import { ForbiddenError, InvalidError } from '../../platform/errors.ts';
import type { Executor } from '../../platform/events/index.ts';
import { findUserById, findUserByName, type UserRow, updateUserRow } from './access.queries.ts';
import { auditOf } from './audit.service.ts';
import { type AccessContext, logUntrustedBase, type RequestMeta } from './context.ts';
import { hashPassword, randomSecret, sha256 } from './crypto.ts';
import {
  BadCredentialsError,
  checkPassword,
  LockedOutError,
  type SessionGrant,
  startSession,
} from './login.service.ts';
import { mailConfigured, sendMail } from './mail.service.ts';
import {
  consumeResetKey,
  deleteExpiredResetKeys,
  deleteResetKeysOfUser,
  findLiveResetKey,
  insertResetKey,
  latestResetKeyAt,
} from './passwords.queries.ts';
import { deleteSessionsOfUser } from './sessions.queries.ts';
import { clearAccountLocks } from './throttle.service.ts';
import { checkPasswordPolicy } from './users.service.ts';

/** A new reset mail for the same user is sent at most this often (the answer stays the same). */
export const RESET_MAIL_INTERVAL_MS = 60_000;

class InvalidResetKeyError extends InvalidError {
  constructor() {
    super(ACCESS_MESSAGES.invalidResetKey, AccessErrorCode.InvalidKey);
  }
}

async function storePassword(db: Db, userId: string, password: string): Promise<void> {
  await updateUserRow(db, userId, {
    passwordHash: await hashPassword(password),
    passwordChangedAt: new Date(),
    passwordExpired: false,
  });
}

/**
 * `POST ui/auth/forgotpassword` (spec 000 §4, §7): a single-use reset key (1 hour) for an internal,
 * enabled user, mailed as a link through the configured SMTP server. Without a mail server the link
 * goes to security.log for an administrator. The answer depends only on whether mail is configured,
 * never on the user.
 */
export async function forgotPassword(
  ctx: AccessContext,
  meta: RequestMeta,
  name: string,
): Promise<{ message: string; mailConfigured: boolean }> {
  const settings = await ctx.settings.get();
  const withMail = mailConfigured(settings.mail);
  const answer = {
    message: withMail ? ACCESS_MESSAGES.forgotPasswordSent : ACCESS_MESSAGES.forgotPasswordNoMail,
    mailConfigured: withMail,
  };
  const audit = { ...auditOf(meta), actor: name, action: 'password.forgot', target: name };
  const user = await findUserByName(ctx.db, name);
  const now = new Date();
  const refuse = async (reason: string) => {
    await ctx.audit.record({ ...audit, result: 'failure', details: { reason } });
    return answer;
  };
  if (!user || user.disabled || user.realm !== 'internal') return refuse('no such internal user');
  if (withMail && !user.email) return refuse('no email address');
  if (withMail && !meta.mailBaseUrl) {
    logUntrustedBase(ctx, meta, 'password.reset.untrusted-host');
    return refuse('no trusted base URL for the link');
  }
  const last = await latestResetKeyAt(ctx.db, user.id);
  if (last && now.getTime() - last.getTime() < RESET_MAIL_INTERVAL_MS) return refuse('too soon');

  const key = randomSecret();
  await ctx.db.transaction(async (tx) => {
    const db: Executor = tx;
    await deleteExpiredResetKeys(db, now);
    await deleteResetKeysOfUser(db, user.id);
    await insertResetKey(db, {
      keyHash: sha256(key),
      userId: user.id,
      expiresAt: new Date(now.getTime() + RESET_KEY_TTL_MS),
    });
  });
  const page = `${(meta.mailBaseUrl ?? meta.baseUrl).replace(/\/+$/, '')}${RESET_PASSWORD_PAGE}`;
  if (!withMail) {
    // The one place a secret is logged (no mail server): the administrator hands the link on.
    // The key has its own field because the redactor masks `?key=` inside URLs.
    ctx.security.warn(
      {
        event: 'password.reset.link',
        user: user.name,
        resetPage: page,
        resetKey: key,
        reqId: meta.requestId,
      },
      'no mail server configured: open resetPage with ?key=resetKey to reset the password',
    );
    await ctx.audit.record({
      ...audit,
      actor: user.name,
      result: 'success',
      details: { delivery: 'security.log' },
    });
    return answer;
  }
  try {
    await sendMail(settings.mail, {
      to: user.email!,
      subject: 'Reset your Granary password',
      text: [
        `Someone asked to reset the password of the Granary account "${user.name}".`,
        '',
        `To choose a new password, open this link within ${RESET_KEY_TTL_MS / 60_000} minutes (it works once):`,
        `${page}?key=${encodeURIComponent(key)}`,
        '',
        'If you did not ask for this, ignore this mail: your password stays as it is.',
      ].join('\n'),
    });
  } catch (err) {
    await ctx.audit.record({
      ...audit,
      actor: user.name,
      result: 'failure',
      details: { reason: 'mail not sent', error: (err as Error).message },
    });
    return answer;
  }
  await ctx.audit.record({ ...audit, actor: user.name, result: 'success', details: { delivery: 'mail' } });
  return answer;
}

async function liveKeyUser(ctx: AccessContext, key: string): Promise<UserRow> {
  const row = await findLiveResetKey(ctx.db, sha256(key), new Date());
  const user = row && (await findUserById(ctx.db, row.userId));
  if (!user || user.disabled) throw new InvalidResetKeyError();
  return user;
}

/** `POST validatetoken?key=`: the user a live reset key belongs to (spec 000 §3 key validation response). */
export async function validateResetKey(ctx: AccessContext, meta: RequestMeta, key: string) {
  try {
    return { user: (await liveKeyUser(ctx, key)).name };
  } catch (err) {
    await ctx.audit.record({ ...auditOf(meta), action: 'password.reset.validate', result: 'failure' });
    throw err;
  }
}

/**
 * `POST ui/auth/resetpassword?key=`: sets the password (policy checked first, so a weak one can be
 * retried with the same key), spends the key, ends the user's other sessions, signs in (rememberMe false).
 */
export async function resetPassword(
  ctx: AccessContext,
  meta: RequestMeta,
  key: string,
  body: { user: string; password: string },
): Promise<SessionGrant> {
  const audit = { ...auditOf(meta), actor: body.user, action: 'password.reset' };
  let user: UserRow;
  try {
    user = await liveKeyUser(ctx, key);
    if (user.name.toLowerCase() !== body.user.toLowerCase()) throw new InvalidResetKeyError();
    checkPasswordPolicy(body.password, (await ctx.settings.get()).passwordPolicy);
  } catch (err) {
    await ctx.audit.record({ ...audit, result: 'failure', details: { reason: (err as Error).message } });
    throw err;
  }
  const passwordHash = await hashPassword(body.password);
  const spent = await ctx.db.transaction(async (tx) => {
    const db: Executor = tx;
    const row = await consumeResetKey(db, sha256(key), new Date());
    if (!row || row.userId !== user.id) return false;
    await updateUserRow(db, user.id, { passwordHash, passwordChangedAt: new Date(), passwordExpired: false });
    await deleteResetKeysOfUser(db, user.id);
    await deleteSessionsOfUser(db, user.id);
    return true;
  });
  if (!spent) {
    await ctx.audit.record({ ...audit, result: 'failure', details: { reason: 'key already used' } });
    throw new InvalidResetKeyError();
  }
  ctx.credentials.clear();
  await clearAccountLocks(ctx.db, user.name);
  await ctx.audit.record({ ...audit, actor: user.name, target: user.name, result: 'success' });
  return startSession(ctx, meta, (await findUserById(ctx.db, user.id))!, false);
}

/**
 * `POST changePassword?prefix=changePassword` (spec 000 §4): the current password proves the user
 * (an expired one is accepted: that is what this call is for), the new one must pass the policy and
 * differ from it; then the user is signed in with rememberMe false.
 *
 * Issue 12 §3: the screen serves a user whose password expired, who cannot sign in, so it stays
 * public; but a caller signed in as someone else is refused before any password is checked (their
 * guess never counts against the named user), and the audit names the real caller (the signed-in
 * user, or nobody) and address, the named user only as target. A caller nobody knows is throttled
 * like a sign-in: by address first, so one address cannot lock the named user out.
 */
export async function changePassword(
  ctx: AccessContext,
  meta: RequestMeta,
  body: ChangePasswordRequest,
): Promise<SessionGrant> {
  const caller = meta.principal;
  const audit = { ...auditOf(meta), target: body.userName, action: 'password.change' };
  if (caller && caller.name.toLowerCase() !== body.userName.toLowerCase()) {
    await ctx.audit.record({ ...audit, result: 'denied', details: { reason: 'not the signed-in user' } });
    throw new ForbiddenError(ACCESS_MESSAGES.changeOthersPassword);
  }
  const check = await checkPassword(ctx, meta, body.userName, body.oldPassword, 'change-password', {
    actor: caller?.name ?? null,
  });
  if (!check.ok && check.reason !== 'password expired') {
    await ctx.audit.record({ ...audit, result: 'failure', details: { reason: check.reason } });
    if (check.reason === 'locked') throw new LockedOutError(check.until);
    throw new BadCredentialsError();
  }
  const user = check.user!;
  try {
    if (body.newPassword1 === body.oldPassword)
      throw new InvalidError(ACCESS_MESSAGES.samePassword, AccessErrorCode.SamePassword);
    checkPasswordPolicy(body.newPassword1, (await ctx.settings.get()).passwordPolicy);
  } catch (err) {
    await ctx.audit.record({ ...audit, result: 'failure', details: { reason: (err as Error).message } });
    throw err;
  }
  await storePassword(ctx.db, user.id, body.newPassword1);
  ctx.credentials.clear();
  await ctx.audit.record({ ...audit, actor: user.name, target: user.name, result: 'success' });
  return startSession(ctx, meta, (await findUserById(ctx.db, user.id))!, false);
}
