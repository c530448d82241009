import {
  ACCESS_MESSAGES,
  AccessErrorCode,
  ANONYMOUS_USER,
  INVITATION_PAGE,
  INVITATION_TOKEN_PATTERN,
  INVITATION_TTL_MS,
  type InvitationCreate,
  type InvitationCreated,
  type InvitationVerifyResponse,
  type InvitedSetPassword,
} from '@granary/contracts';
import { ConflictError, InvalidError, UpstreamError } from '../../platform/errors.ts';
import type { Executor } from '../../platform/events/index.ts';
import { findUserByName } from './access.queries.ts';
import { auditOf } from './audit.service.ts';
import { type AccessContext, logUntrustedBase, type RequestMeta } from './context.ts';
import { randomSecret, sha256 } from './crypto.ts';
import {
  consumeInvitation,
  deletePendingInvitations,
  findLiveInvitation,
  insertInvitation,
  releaseInvitation,
} from './invitations.queries.ts';
import { type SessionGrant, startSession } from './login.service.ts';
import { mailConfigured, sendMail } from './mail.service.ts';
import { checkPasswordPolicy, createUser } from './users.service.ts';

class InvalidInvitationError extends InvalidError {
  constructor() {
    super(ACCESS_MESSAGES.invalidInvitation, AccessErrorCode.InvalidInvitation);
  }
}

/** 502: the mail server (upstream) did not take the mail: a fault for the admin to fix, not the caller's. */
class MailFailedError extends UpstreamError {
  constructor() {
    super(ACCESS_MESSAGES.mailFailed, AccessErrorCode.MailFailed);
  }
}

/**
 * `POST /api/security/invitations` (admin): mails a single-use link `{base}/ui/login/invitation?token=…`
 * through the configured SMTP server. The token is random (256 bits) and only its SHA-256 is stored; a new
 * invitation to the same address replaces the pending one. Refused without a mail server, and without a
 * trusted public address for the link (GRANARY_BASE_URL, or a Host this server listens under).
 */
export async function inviteUser(
  ctx: AccessContext,
  meta: RequestMeta,
  body: InvitationCreate,
): Promise<InvitationCreated> {
  const audit = { ...auditOf(meta), action: 'user.invite', target: body.email };
  const fail = async (reason: string, err: Error): Promise<never> => {
    await ctx.audit.record({ ...audit, result: 'failure', details: { reason } });
    throw err;
  };
  const settings = await ctx.settings.get();
  if (!mailConfigured(settings.mail))
    return fail(
      'no mail server',
      new ConflictError(ACCESS_MESSAGES.mailNotConfigured, AccessErrorCode.MailNotConfigured),
    );
  if (!meta.mailBaseUrl) {
    logUntrustedBase(ctx, meta, 'user.invite.untrusted-host');
    return fail(
      'no trusted base URL',
      new ConflictError(ACCESS_MESSAGES.baseUrlUntrusted, AccessErrorCode.BaseUrlUntrusted),
    );
  }
  const token = randomSecret();
  const now = new Date();
  const ttl = body.expiresInHours ? body.expiresInHours * 3_600_000 : INVITATION_TTL_MS;
  const expiresAt = new Date(now.getTime() + ttl);
  await ctx.db.transaction(async (tx) => {
    const db: Executor = tx;
    await deletePendingInvitations(db, body.email, now);
    await insertInvitation(db, {
      tokenHash: sha256(token),
      email: body.email,
      invitedBy: meta.principal?.name ?? null,
      expiresAt,
    });
  });
  const link = `${meta.mailBaseUrl.replace(/\/+$/, '')}${INVITATION_PAGE}?token=${encodeURIComponent(token)}`;
  const days = Math.round(ttl / 86_400_000);
  try {
    await sendMail(settings.mail, {
      to: body.email,
      subject: 'You are invited to Granary',
      text: [
        `${meta.principal?.name ?? 'An administrator'} invited you to the Granary artifact repository.`,
        '',
        `To create your account, open this link ${days >= 1 ? `within ${days} day${days === 1 ? '' : 's'}` : `within ${Math.round(ttl / 3_600_000)} hours`} (it works once):`,
        link,
        '',
        'If you did not expect this, ignore this mail.',
      ].join('\n'),
    });
  } catch (err) {
    await deletePendingInvitations(ctx.db, body.email, now);
    return fail(`mail not sent: ${(err as Error).message}`, new MailFailedError());
  }
  await ctx.audit.record({ ...audit, result: 'success', details: { expiresAt: expiresAt.toISOString() } });
  return { email: body.email, expiresAt: expiresAt.toISOString() };
}

async function liveInvitation(ctx: AccessContext, token: string) {
  if (!INVITATION_TOKEN_PATTERN.test(token)) throw new InvalidInvitationError();
  const row = await findLiveInvitation(ctx.db, sha256(token), new Date());
  if (!row) throw new InvalidInvitationError();
  return row;
}

/** `POST access/token/verify` (spec 000 §7): the address a live invitation was sent to. */
export async function verifyInvitation(
  ctx: AccessContext,
  meta: RequestMeta,
  token: string,
): Promise<InvitationVerifyResponse> {
  try {
    const row = await liveInvitation(ctx, token);
    return { email: row.email, expiresAt: row.expiresAt.toISOString() };
  } catch (err) {
    await ctx.audit.record({ ...auditOf(meta), action: 'user.invite.verify', result: 'failure' });
    throw err;
  }
}

/**
 * `POST access/entities/users/invited/setPassword` (spec 000 §7): creates the invited user (never an
 * admin, the auto-join groups, the invitation's address) with a password that passes the policy, spends
 * the invitation, and signs in. A weak password or a taken name leave the invitation usable.
 */
export async function acceptInvitation(
  ctx: AccessContext,
  meta: RequestMeta,
  body: InvitedSetPassword,
): Promise<SessionGrant> {
  const audit = {
    ...auditOf(meta),
    actor: body.username,
    target: body.username,
    action: 'user.invite.accept',
  };
  let email: string;
  try {
    email = (await liveInvitation(ctx, body.token)).email;
    if (body.username.toLowerCase() === ANONYMOUS_USER)
      throw new InvalidError(`'${ANONYMOUS_USER}' is reserved`);
    if (await findUserByName(ctx.db, body.username))
      throw new ConflictError(ACCESS_MESSAGES.userExists, AccessErrorCode.UserExists);
    checkPasswordPolicy(body.password, (await ctx.settings.get()).passwordPolicy);
    if (!(await consumeInvitation(ctx.db, sha256(body.token), new Date())))
      throw new InvalidInvitationError();
  } catch (err) {
    await ctx.audit.record({ ...audit, result: 'failure', details: { reason: (err as Error).message } });
    throw err;
  }
  try {
    await createUser(ctx, meta, body.username, { email, password: body.password, admin: false });
  } catch (err) {
    // The name was taken in between: the invitation stays usable with another name.
    await releaseInvitation(ctx.db, sha256(body.token));
    await ctx.audit.record({ ...audit, result: 'failure', details: { reason: (err as Error).message } });
    throw err;
  }
  await ctx.audit.record({ ...audit, result: 'success' });
  return startSession(ctx, meta, (await findUserByName(ctx.db, body.username))!, false);
}
