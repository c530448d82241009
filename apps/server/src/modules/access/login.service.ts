import {
  ACCESS_MESSAGES,
  AccessErrorCode,
  ANONYMOUS_USER,
  type MfaStatusValue,
  type UserData,
} from '@granary/contracts';
import { generateSecret, generateURI, verify as verifyOtp } from 'otplib';
import {
  ForbiddenError,
  InvalidError,
  RateLimitedError,
  UnauthorizedError,
  UpstreamError,
} from '../../platform/errors.ts';
import type { Principal } from '../../platform/http/access-control.ts';
import { openFor, registerSealedColumn, sealFor } from '../../platform/secrets/index.ts';
import { findUserById, findUserByName, type UserRow, updateUserRow } from './access.queries.ts';
import { initialAdminPasswordUnchanged } from './access.service.ts';
import { auditOf } from './audit.service.ts';
import type { AccessContext, RequestMeta } from './context.ts';
import { spendVerification, verifyPassword } from './crypto.ts';
import { isProjectAdmin } from './projects.service.ts';
import { deleteSessionIfState } from './sessions.queries.ts';
import { closeSession, openSession, resolveSession } from './sessions.service.ts';
import { enabledLdapProviders, ldapSignIn } from './sso/ldap.service.ts';
import { LDAP_UNREACHABLE_MESSAGE } from './sso/ldap.ts';
import { clearSignInFailures, lockedUntil, recordSignInFailure, signInKeys } from './throttle.service.ts';
import { passwordIsExpired, principalOf } from './users.service.ts';

/** 429 with `Retry-After`: the seconds until the lockout ends (issue 12 §23). */
export class LockedOutError extends RateLimitedError {
  constructor(until?: Date | null) {
    super(ACCESS_MESSAGES.lockedOut, AccessErrorCode.LockedOut);
    if (until)
      this.headers = { 'retry-after': String(Math.max(1, Math.ceil((until.getTime() - Date.now()) / 1000))) };
  }
}
export class BadCredentialsError extends UnauthorizedError {
  constructor() {
    super(ACCESS_MESSAGES.badCredentials, AccessErrorCode.BadCredentials);
  }
}
/** The password is right but expired: the console goes to change-password (spec 000 §8). */
export class CredentialsExpiredError extends ForbiddenError {
  constructor(code: AccessErrorCode = AccessErrorCode.CredentialsExpired) {
    super(
      code === AccessErrorCode.PasswordExpired
        ? ACCESS_MESSAGES.passwordExpired
        : ACCESS_MESSAGES.credentialsExpired,
      code,
    );
  }
}

export type PasswordCheck =
  | { ok: true; user: UserRow }
  | { ok: false; reason: 'locked'; until: Date; user?: undefined }
  | {
      ok: false;
      reason: 'bad credentials' | 'user disabled' | 'password expired' | 'directory unreachable';
      user?: UserRow;
    };

/**
 * Checks a name and password with brute-force throttling (throttle.service.ts: the address first,
 * then the account). Unknown names cost the same time and are throttled like known ones, so no
 * answer reveals which names exist. The audit names the claimed name as actor, unless `opts.actor`
 * says who really asks (change-password by someone not signed in).
 */
export async function checkPassword(
  ctx: AccessContext,
  meta: Pick<RequestMeta, 'ip' | 'requestId'>,
  name: string,
  password: string,
  channel: string,
  opts: { actor?: string | null } = {},
): Promise<PasswordCheck> {
  const who = 'actor' in opts ? { actor: opts.actor ?? null, target: name } : { actor: name };
  const until = await lockedUntil(ctx.db, signInKeys(name, meta.ip));
  if (until) {
    await spendVerification(password);
    await ctx.audit.record({
      action: 'login.locked',
      result: 'denied',
      ...who,
      ip: meta.ip,
      requestId: meta.requestId,
      details: { channel },
    });
    return { ok: false, reason: 'locked', until };
  }
  let user = await findUserByName(ctx.db, name);
  let verified = false;
  // Issue 20: a name unknown here, or of realm ldap, is checked against the enabled LDAP directories.
  const ldap = !user || user.realm === 'ldap' ? await enabledLdapProviders(ctx.db) : [];
  const directory = ldap.length > 0 ? await ldapSignIn(ctx, meta, name, password, ldap) : undefined;
  if (directory?.ok) {
    user = directory.user;
    verified = true;
  } else if (directory) {
    if (directory.reason === 'directory unreachable') {
      await ctx.audit.record({
        action: 'login.failure',
        result: 'failure',
        ...who,
        ip: meta.ip,
        requestId: meta.requestId,
        details: { channel, reason: directory.reason },
      });
      return { ok: false, reason: 'directory unreachable' };
    }
  } else if (user?.passwordHash) verified = await verifyPassword(user.passwordHash, password);
  else await spendVerification(password);
  if (!user || !verified || user.disabled) {
    const reason =
      (user && verified) || (directory && !directory.ok && directory.reason === 'user disabled')
        ? 'user disabled'
        : 'bad credentials';
    const locked = await recordSignInFailure(ctx.db, name, meta.ip);
    await ctx.audit.record({
      action: 'login.failure',
      result: 'failure',
      ...who,
      ip: meta.ip,
      requestId: meta.requestId,
      details: {
        channel,
        reason,
        ...(directory && !directory.ok && directory.detail ? { directory: directory.detail } : {}),
      },
    });
    if (locked)
      await ctx.audit.record({
        action: 'login.lockout',
        result: 'denied',
        ...who,
        ip: meta.ip,
        requestId: meta.requestId,
      });
    return { ok: false, reason };
  }
  await clearSignInFailures(ctx.db, name, meta.ip);
  if (passwordIsExpired(user, (await ctx.settings.get()).passwordPolicy)) {
    await ctx.audit.record({
      action: 'login.expired',
      result: 'denied',
      ...('actor' in opts ? who : { actor: user.name }),
      ip: meta.ip,
      requestId: meta.requestId,
      details: { channel },
    });
    return { ok: false, reason: 'password expired', user };
  }
  return { ok: true, user };
}

function throwFor(check: Exclude<PasswordCheck, { ok: true }>, expiredCode: AccessErrorCode): never {
  if (check.reason === 'locked') throw new LockedOutError(check.until);
  if (check.reason === 'password expired') throw new CredentialsExpiredError(expiredCode);
  if (check.reason === 'directory unreachable') throw new UpstreamError(LDAP_UNREACHABLE_MESSAGE);
  throw new BadCredentialsError();
}

/** User data (spec 000 §3) for a signed-in user. */
export async function userDataOf(
  ctx: AccessContext,
  user: UserRow,
  mfaStatus: MfaStatusValue,
): Promise<UserData> {
  const principal = await principalOf(ctx.db, user, 'session');
  const settings = await ctx.settings.get();
  return {
    name: user.name,
    realm: user.realm,
    admin: principal.admin,
    mfaStatus,
    email: user.email,
    anonymous: false,
    anonAccessEnabled: settings.anonymousAccess,
    projectAdmin: await isProjectAdmin(ctx, principal),
    groups: principal.groups ?? [],
    existsInDB: true,
    profileUpdatable: user.profileUpdatable,
    requireProfilePassword: false,
    requireProfileUnlock: false,
    mfaEnrolled: user.mfaSecret !== null,
    initialPasswordUnchanged: await initialAdminPasswordUnchanged(ctx.db, user),
  };
}

export async function anonymousUserData(ctx: AccessContext): Promise<UserData> {
  const settings = await ctx.settings.get();
  return {
    name: ANONYMOUS_USER,
    realm: 'internal',
    admin: false,
    mfaStatus: 'NONE',
    email: null,
    anonymous: true,
    anonAccessEnabled: settings.anonymousAccess,
    projectAdmin: false,
    groups: [],
    existsInDB: false,
    profileUpdatable: false,
    requireProfilePassword: false,
    requireProfileUnlock: false,
  };
}

export interface SessionGrant {
  token: string;
  maxAgeSeconds: number | null;
  userData: UserData;
}

/**
 * Console login (spec 000 §4): a full session, or — when the user has MFA, or every user must
 * enrol — a pending session that only lets the user finish MFA (mfaStatus VERIFY or ENROLL).
 */
export async function consoleLogin(
  ctx: AccessContext,
  meta: RequestMeta,
  name: string,
  password: string,
  rememberMe: boolean,
  expiredCode: AccessErrorCode,
): Promise<SessionGrant> {
  const check = await checkPassword(ctx, meta, name, password, 'console');
  if (!check.ok) throwFor(check, expiredCode);
  return startSession(ctx, meta, check.user, rememberMe);
}

/** Opens the session after the password was proven (login, reset, change). */
export async function startSession(
  ctx: AccessContext,
  meta: RequestMeta,
  user: UserRow,
  rememberMe: boolean,
): Promise<SessionGrant> {
  const settings = await ctx.settings.get();
  const mfaStatus: MfaStatusValue = user.mfaSecret ? 'VERIFY' : settings.mfaRequired ? 'ENROLL' : 'NONE';
  const opened = await openSession(
    ctx.db,
    user,
    mfaStatus === 'NONE' ? 'active' : 'mfa',
    rememberMe,
    meta.ip,
  );
  if (mfaStatus === 'NONE') await updateUserRow(ctx.db, user.id, { lastLoginAt: new Date() });
  await ctx.audit.record({
    action: mfaStatus === 'NONE' ? 'login.success' : 'login.mfa-pending',
    result: 'success',
    actor: user.name,
    ip: meta.ip,
    requestId: meta.requestId,
    details: { rememberMe },
  });
  return {
    token: opened.token,
    maxAgeSeconds: opened.maxAgeSeconds,
    userData: await userDataOf(ctx, user, mfaStatus),
  };
}

export async function logout(
  ctx: AccessContext,
  meta: RequestMeta,
  sessionToken: string | undefined,
): Promise<void> {
  if (!sessionToken) return;
  const hit = await resolveSession(ctx.db, sessionToken);
  if (!hit) return;
  await closeSession(ctx.db, hit.session.id);
  await ctx.audit.record({ ...auditOf(meta), actor: hit.user.name, action: 'logout', result: 'success' });
}

// --------------------------------------------------------------------------------------------
// MFA: TOTP (RFC 6238), 30 s steps, 6 digits, ±1 step of clock drift; a code works once.
// --------------------------------------------------------------------------------------------

export const MFA_ISSUER = 'Granary';

/** The user an MFA call is about: a pending-MFA session, or a signed-in user enrolling from the profile. */
async function mfaSubject(ctx: AccessContext, principal: Principal | null, sessionToken: string | undefined) {
  if (sessionToken) {
    const hit = await resolveSession(ctx.db, sessionToken);
    if (hit?.session.state === 'mfa' && !hit.user.disabled) return { user: hit.user, pending: hit.session };
  }
  if (principal) {
    const user = await findUserById(ctx.db, principal.id);
    if (user) return { user, pending: undefined };
  }
  // spec 000 §8: a 403 sends the console back to login.
  throw new ForbiddenError('Sign in first');
}

// The TOTP seeds are sealed at rest (issue 18): sealed on write, opened only to check a code.
registerSealedColumn({ table: 'users', key: 'id', column: 'mfa_secret' });
registerSealedColumn({ table: 'users', key: 'id', column: 'mfa_pending_secret' });

/** `GET auth/mfa/enroll/{x}`: a new secret and its otpauth URI; it becomes the user's once a code verifies. */
export async function enrollMfa(
  ctx: AccessContext,
  principal: Principal | null,
  sessionToken: string | undefined,
) {
  const { user, pending } = await mfaSubject(ctx, principal, sessionToken);
  if (pending && user.mfaSecret) throw new ForbiddenError('Already enrolled: verify a code');
  // Replacing an authenticator is removing it: that needs a code from the current one (issue 12 §2).
  if (user.mfaSecret)
    throw new ForbiddenError(
      'An authenticator is already set up: remove it first (with a code from it), then set up the new one',
    );
  const secret = generateSecret();
  await updateUserRow(ctx.db, user.id, { mfaPendingSecret: sealFor(ctx.db, secret) });
  return {
    secret,
    otpauthUri: generateURI({ issuer: MFA_ISSUER, label: user.name, secret }),
    issuer: MFA_ISSUER,
    account: user.name,
  };
}

/**
 * `POST auth/mfa/verify/{x}`: checks the code against the enrolled secret (VERIFY) or the secret
 * being enrolled (ENROLL). With a pending session it then opens the real session (a new id).
 */
export async function verifyMfa(
  ctx: AccessContext,
  meta: RequestMeta,
  sessionToken: string | undefined,
  otp: string,
): Promise<SessionGrant | { userData: UserData; token?: undefined }> {
  const { user, pending } = await mfaSubject(ctx, meta.principal, sessionToken);
  if (!pending && user.mfaSecret)
    throw new ForbiddenError('An authenticator is already set up: remove it first (with a code from it)');
  const enrolling = pending ? !user.mfaSecret : true;
  const secret = enrolling ? user.mfaPendingSecret : user.mfaSecret;
  if (!secret) throw new InvalidError('Enrol first', AccessErrorCode.MfaRequired);
  const until = await lockedUntil(ctx.db, signInKeys(user.name, meta.ip));
  if (until) throw new LockedOutError(until);
  const result = await checkOtp(openFor(ctx.db, secret), otp, user.mfaLastStep);
  if (!result.valid) {
    const locked = await recordSignInFailure(ctx.db, user.name, meta.ip);
    await ctx.audit.record({ ...auditOf(meta), actor: user.name, action: 'mfa.failure', result: 'failure' });
    if (locked && pending) await deleteSessionIfState(ctx.db, pending.id, 'mfa');
    throw new InvalidError(ACCESS_MESSAGES.invalidOtp, AccessErrorCode.InvalidOtp);
  }
  await updateUserRow(ctx.db, user.id, {
    mfaLastStep: result.timeStep,
    ...(enrolling ? { mfaSecret: secret, mfaPendingSecret: null } : {}),
  });
  // From now on the password alone no longer signs this user in: forget cached Basic sign-ins.
  if (enrolling) await ctx.credentials.clear();
  await ctx.audit.record({
    ...auditOf(meta),
    actor: user.name,
    action: enrolling ? 'mfa.enroll' : 'mfa.verify',
    result: 'success',
  });
  if (!pending) return { userData: await userDataOf(ctx, (await findUserById(ctx.db, user.id))!, 'NONE') };
  // Only one request can turn a pending session into a real one.
  if (!(await deleteSessionIfState(ctx.db, pending.id, 'mfa'))) throw new ForbiddenError('Sign in first');
  const opened = await openSession(ctx.db, user, 'active', pending.rememberMe, meta.ip);
  await updateUserRow(ctx.db, user.id, { lastLoginAt: new Date() });
  await ctx.audit.record({
    action: 'login.success',
    result: 'success',
    actor: user.name,
    ip: meta.ip,
    requestId: meta.requestId,
    details: { mfa: true },
  });
  return {
    token: opened.token,
    maxAgeSeconds: opened.maxAgeSeconds,
    userData: await userDataOf(ctx, user, 'NONE'),
  };
}

/** A TOTP check with ±1 step of drift that refuses the step last used (a code works once). */
async function checkOtp(
  secret: string,
  otp: string,
  lastStep: number | null,
): Promise<{ valid: false } | { valid: true; timeStep: number }> {
  if (!/^\d{6}$/.test(otp)) return { valid: false };
  const result = await verifyOtp({
    secret,
    token: otp,
    epochTolerance: 30,
    afterTimeStep: lastStep ?? undefined,
  }).catch(() => ({ valid: false as const }));
  if (!result.valid) return { valid: false };
  return {
    valid: true,
    timeStep: (result as { timeStep?: number }).timeStep ?? Math.floor(Date.now() / 30_000),
  };
}

/**
 * Step-up for a user with an authenticator (issue 12 §2): creating a token, fetching an API key,
 * confirming a CLI sign-in or removing the authenticator needs a fresh one-time code, whatever
 * the caller signed in with. No code: 401 OTP_REQUIRED (with `WWW-Authenticate: OTP`, which npm
 * answers by asking for one); a wrong or reused code counts as a failed sign-in. A user without an
 * authenticator passes.
 */
export async function requireFreshOtp(
  ctx: AccessContext,
  meta: RequestMeta,
  user: UserRow,
  otp: string | undefined,
  action: string,
): Promise<void> {
  if (!user.mfaSecret) return;
  const audit = { ...auditOf(meta), target: user.name, details: { action } };
  if (!otp) {
    await ctx.audit.record({ ...audit, action: 'mfa.step-up', result: 'denied' });
    const error = new UnauthorizedError(ACCESS_MESSAGES.otpRequired, AccessErrorCode.OtpRequired);
    error.headers = { 'www-authenticate': 'OTP' };
    throw error;
  }
  const until = await lockedUntil(ctx.db, signInKeys(user.name, meta.ip));
  if (until) throw new LockedOutError(until);
  const result = await checkOtp(openFor(ctx.db, user.mfaSecret), otp.trim(), user.mfaLastStep);
  if (!result.valid) {
    await recordSignInFailure(ctx.db, user.name, meta.ip);
    await ctx.audit.record({ ...audit, action: 'mfa.step-up', result: 'failure' });
    throw new UnauthorizedError(ACCESS_MESSAGES.invalidOtp, AccessErrorCode.InvalidOtp);
  }
  await updateUserRow(ctx.db, user.id, { mfaLastStep: result.timeStep });
  await ctx.audit.record({ ...audit, action: 'mfa.step-up', result: 'success' });
}

/** An admin removes a user's authenticator (the user enrols again at the next sign-in if required). */
export async function resetMfa(ctx: AccessContext, meta: RequestMeta, user: UserRow): Promise<void> {
  await updateUserRow(ctx.db, user.id, { mfaSecret: null, mfaPendingSecret: null, mfaLastStep: null });
  await ctx.audit.record({ ...auditOf(meta), action: 'mfa.reset', target: user.name, result: 'success' });
}
