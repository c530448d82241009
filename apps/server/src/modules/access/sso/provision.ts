import {
  SSO_MESSAGES,
  type SsoMapping,
  type SsoRealm,
  type SsoTestResult,
  userNameSchema,
} from '@granary/contracts';
import { eq, sql } from 'drizzle-orm';
import type { FastifyReply, FastifyRequest } from 'fastify';
import { ForbiddenError, InvalidError } from '../../../platform/errors.ts';
import { type Executor, publish } from '../../../platform/events/index.ts';
import {
  autoJoinGroups,
  findGroupsByNames,
  findUserByName,
  groupsOfUser,
  insertGroup,
  setUserGroups,
  type UserRow,
  updateUserRow,
} from '../access.queries.ts';
import { users } from '../access.schema.ts';
import { type AccessContext, permissionsChanged, type RequestMeta, requestMeta } from '../context.ts';
import { setSessionCookie } from '../cookies.ts';
import { type SessionGrant, userDataOf } from '../login.service.ts';
import { openSession } from '../sessions.service.ts';
import { userEvent } from '../users.service.ts';
import { loadProvider, type ResolvedProvider } from './providers.service.ts';

/** Who the identity provider says signed in, after the claims mapping. */
export interface ExternalIdentity {
  realm: SsoRealm;
  providerKey: string;
  username: string;
  email?: string | null;
  groups: string[];
}

/** A sign-in through a provider was refused: the message is for the user (the login page shows it). */
export class SsoSignInError extends ForbiddenError {}

const uniq = (names: string[]) => {
  const seen = new Set<string>();
  const out: string[] = [];
  for (const raw of names) {
    const name = raw.trim();
    if (!name || seen.has(name.toLowerCase())) continue;
    seen.add(name.toLowerCase());
    out.push(name);
  }
  return out;
};

/** A claim's value by name; dotted names reach into objects (`realm_access.roles`). */
export function claimValue(claims: Record<string, unknown>, name: string): unknown {
  if (name in claims) return claims[name];
  let value: unknown = claims;
  for (const part of name.split('.')) {
    if (!value || typeof value !== 'object') return undefined;
    value = (value as Record<string, unknown>)[part];
  }
  return value;
}

function asStrings(value: unknown): string[] {
  if (value === undefined || value === null) return [];
  if (Array.isArray(value)) return value.flatMap(asStrings);
  if (typeof value === 'string') return value.includes(',') ? value.split(',') : [value];
  if (typeof value === 'number' || typeof value === 'boolean') return [String(value)];
  return [];
}

function asString(value: unknown): string | null {
  const [first] = asStrings(value);
  return first?.trim() || null;
}

/** Whether any of the user's groups is one of the mapping's admin groups (case-insensitive). */
export function isAdminByGroups(mapping: SsoMapping, groups: string[]): boolean {
  const admins = new Set(mapping.adminGroups.map((g) => g.toLowerCase()));
  return groups.some((g) => admins.has(g.toLowerCase()));
}

/** The claims mapping: username, email and groups out of an identity provider's claims or attributes. */
export function mapClaims(
  mapping: SsoMapping,
  claims: Record<string, unknown>,
  fallbacks: { usernameClaims?: string[] } = {},
): { username: string | null; email: string | null; groups: string[]; admin: boolean } {
  let username = asString(claimValue(claims, mapping.usernameClaim));
  for (const alt of fallbacks.usernameClaims ?? []) username ??= asString(claimValue(claims, alt));
  const email = asString(claimValue(claims, mapping.emailClaim));
  const groups = uniq(asStrings(claimValue(claims, mapping.groupsClaim)));
  return { username, email, groups, admin: isAdminByGroups(mapping, groups) };
}

/** The test sign-in answer (nothing created, no session). */
export function testResultOf(
  provider: ResolvedProvider,
  realm: SsoRealm,
  mapped: { username: string | null; email: string | null; groups: string[]; admin: boolean },
  claims?: Record<string, unknown>,
): SsoTestResult {
  const valid = mapped.username !== null && userNameSchema.safeParse(mapped.username).success;
  return {
    ok: valid,
    provider: provider.key,
    realm,
    username: mapped.username,
    email: mapped.email,
    groups: mapped.groups,
    admin: mapped.admin,
    ...(claims ? { claims } : {}),
    ...(valid
      ? {}
      : {
          error: mapped.username
            ? `The user name '${mapped.username}' is not valid in Granary`
            : SSO_MESSAGES.noUsername,
        }),
  };
}

async function refuse(
  ctx: AccessContext,
  meta: RequestMeta,
  identity: ExternalIdentity,
  reason: string,
  message: string,
): Promise<never> {
  await ctx.audit.record({
    action: 'login.failure',
    result: 'failure',
    actor: identity.username || null,
    ip: meta.ip,
    requestId: meta.requestId,
    details: { channel: 'sso', realm: identity.realm, provider: identity.providerKey, reason },
  });
  throw new SsoSignInError(message);
}

/**
 * Brings the user's group membership in line with the identity provider: groups named by the provider
 * are joined (created first when the mapping asks), groups of this realm the provider no longer names
 * are left; groups given by an admin in Granary (another realm) stay. Users of an SSO realm are admins
 * exactly when in an admin group (when the mapping names admin groups).
 */
export async function syncGroups(
  ctx: AccessContext,
  meta: RequestMeta,
  provider: ResolvedProvider,
  identity: ExternalIdentity,
  user: UserRow,
): Promise<void> {
  const wanted = uniq(identity.groups);
  const mapping = provider.mapping;
  const { added, removed, created, adminChanged } = await ctx.db.transaction(async (tx) => {
    const db: Executor = tx;
    const found = await findGroupsByNames(db, wanted);
    const created: string[] = [];
    if (mapping.createMissingGroups) {
      for (const name of wanted) {
        if (found.some((g) => g.name.toLowerCase() === name.toLowerCase())) continue;
        if (!userNameSchema.safeParse(name).success) continue;
        const row = await insertGroup(db, {
          name,
          realm: identity.realm,
          description: `Created by single sign-on (${provider.name})`,
        });
        found.push(row);
        created.push(row.name);
      }
    }
    const current = await groupsOfUser(tx as never, user.id);
    const wantedLower = new Set(wanted.map((g) => g.toLowerCase()));
    const keep = current.filter((g) => g.realm !== identity.realm || wantedLower.has(g.name.toLowerCase()));
    const removed = current.filter((g) => !keep.includes(g)).map((g) => g.name);
    const ids = new Set(keep.map((g) => g.id));
    const added: string[] = [];
    for (const g of found)
      if (!ids.has(g.id)) {
        ids.add(g.id);
        added.push(g.name);
      }
    if (added.length > 0 || removed.length > 0) await setUserGroups(db, user.id, [...ids]);
    let adminChanged = false;
    if (user.realm !== 'internal' && mapping.adminGroups.length > 0) {
      const admin = isAdminByGroups(mapping, wanted);
      if (admin !== user.admin) {
        await updateUserRow(db, user.id, { admin });
        adminChanged = true;
      }
    }
    return { added, removed, created, adminChanged };
  });
  if (added.length > 0 || removed.length > 0 || adminChanged || created.length > 0) {
    await permissionsChanged(ctx);
    await ctx.audit.record({
      action: 'sso.groups.sync',
      result: 'success',
      actor: user.name,
      ip: meta.ip,
      requestId: meta.requestId,
      details: { provider: provider.key, realm: identity.realm, added, removed, created, adminChanged },
    });
  }
}

/** Finds the user, or creates it when the provider may (realm recorded, no local password). */
export async function findOrCreateUser(
  ctx: AccessContext,
  meta: RequestMeta,
  provider: ResolvedProvider,
  identity: ExternalIdentity,
): Promise<UserRow> {
  const existing = await findUserByName(ctx.db, identity.username);
  if (existing) return existing;
  if (!provider.autoCreateUsers) return refuse(ctx, meta, identity, 'unknown user', SSO_MESSAGES.unknownUser);
  const admin = isAdminByGroups(provider.mapping, identity.groups);
  const row = await ctx.db.transaction(async (tx) => {
    const db: Executor = tx;
    const [inserted] = await db
      .insert(users)
      .values({
        name: identity.username,
        email: identity.email ?? null,
        passwordHash: null,
        admin,
        realm: identity.realm,
        // An SSO user has no Granary password: its profile cannot change one.
        profileUpdatable: false,
      })
      .onConflictDoNothing()
      .returning();
    if (!inserted) return undefined;
    const joins = (await autoJoinGroups(db)).map((g) => g.id);
    if (joins.length > 0) await setUserGroups(db, inserted.id, joins);
    await publish(db, userEvent('created', inserted.name, `sso:${provider.key}`));
    return inserted;
  });
  if (!row) {
    // Another node created it at the same moment.
    const again = await findUserByName(ctx.db, identity.username);
    if (!again) throw new InvalidError(SSO_MESSAGES.signInFailed);
    return again;
  }
  await permissionsChanged(ctx);
  await ctx.audit.record({
    action: 'user.create',
    result: 'success',
    actor: null,
    target: row.name,
    ip: meta.ip,
    requestId: meta.requestId,
    details: { channel: 'sso', realm: identity.realm, provider: provider.key, admin },
  });
  return row;
}

/**
 * The end of every external sign-in (OIDC, OAuth 2.0, SAML, LDAP, HTTP SSO): checks the provider and
 * the user, creates the user on first sign-in when the provider allows it, syncs its groups, and opens
 * a console session exactly as the local login does (same idle and absolute limits; the identity
 * provider did the authentication, so MFA — for local accounts — does not apply). Every outcome is in
 * security.log and the audit table. Throws `SsoSignInError` with a message for the user when refused.
 */
export async function signInExternalUser(
  ctx: AccessContext,
  identity: ExternalIdentity,
  request: FastifyRequest,
  reply: FastifyReply | null,
  opts: { rememberMe?: boolean } = {},
): Promise<SessionGrant> {
  const meta = requestMeta(request, ctx.baseUrl);
  const provider = await loadProvider(ctx.db, identity.providerKey);
  if (!provider) return refuse(ctx, meta, identity, 'unknown provider', SSO_MESSAGES.unknownProvider);
  if (!provider.enabled)
    return refuse(ctx, meta, identity, 'provider disabled', SSO_MESSAGES.providerDisabled);
  const username = identity.username?.trim() ?? '';
  if (!username) return refuse(ctx, meta, identity, 'no user name', SSO_MESSAGES.noUsername);
  if (!userNameSchema.safeParse(username).success)
    return refuse(
      ctx,
      meta,
      identity,
      'invalid user name',
      `The user name '${username}' is not valid in Granary`,
    );
  const who: ExternalIdentity = { ...identity, username };
  let user = await findOrCreateUser(ctx, meta, provider, who);
  if (user.disabled) return refuse(ctx, meta, who, 'user disabled', SSO_MESSAGES.userDisabled);
  // A local administrator (the escape hatch when the identity provider fails) is never claimed by an
  // identity provider's user name: an IdP user called `admin` does not become Granary's admin.
  if (user.realm === 'internal' && user.admin)
    return refuse(ctx, meta, who, 'local administrator account', SSO_MESSAGES.localUserExists);
  await syncGroups(ctx, meta, provider, who, user);
  if (who.email && who.email !== user.email && user.realm !== 'internal')
    await updateUserRow(ctx.db, user.id, { email: who.email });
  const [fresh] = await ctx.db.select().from(users).where(eq(users.id, user.id));
  user = fresh ?? user;
  const rememberMe = opts.rememberMe ?? false;
  const opened = await openSession(ctx.db, user, 'active', rememberMe, meta.ip);
  await updateUserRow(ctx.db, user.id, { lastLoginAt: new Date() });
  await ctx.audit.record({
    action: 'login.success',
    result: 'success',
    actor: user.name,
    ip: meta.ip,
    requestId: meta.requestId,
    details: { channel: 'sso', realm: who.realm, provider: provider.key, rememberMe },
  });
  if (reply) setSessionCookie(reply, request, opened.token, opened.maxAgeSeconds);
  return {
    token: opened.token,
    maxAgeSeconds: opened.maxAgeSeconds,
    userData: await userDataOf(ctx, user, 'NONE'),
  };
}

/** Whether a user may sign in through external providers by name alone (for HTTP SSO and LDAP checks). */
export async function userExists(ctx: AccessContext, name: string): Promise<boolean> {
  const rows = await ctx.db
    .select({ id: users.id })
    .from(users)
    .where(eq(sql`lower(${users.name})`, name.toLowerCase()))
    .limit(1);
  return rows.length > 0;
}
