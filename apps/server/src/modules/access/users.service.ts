import {
  ACCESS_MESSAGES,
  AccessErrorCode,
  ANONYMOUS_USER,
  type PasswordPolicy,
  passwordProblems,
  type User,
  type UserWrite,
  userNameSchema,
} from '@granary/contracts';
import type { Db } from '../../platform/db/index.ts';
import { ConflictError, InvalidError, NotFoundError, validField } from '../../platform/errors.ts';
import { type DomainEvent, type Executor, publish } from '../../platform/events/index.ts';
import type { Principal } from '../../platform/http/access-control.ts';
import {
  autoJoinGroups,
  deleteUserRow,
  findGroupsByNames,
  findUserByName,
  groupsOfUser,
  insertUser,
  listUserRows,
  setUserGroups,
  type UserRow,
  updateUserRow,
} from './access.queries.ts';
import { auditOf } from './audit.service.ts';
import { type AccessContext, permissionsChanged, type RequestMeta } from './context.ts';
import { hashPassword } from './crypto.ts';
import { removePrincipalFromTargets } from './permissions.service.ts';
import { accountLockedUntil, clearAccountLocks } from './throttle.service.ts';

/** The principal a user acts as: admin directly or through a group with admin privileges. */
export async function principalOf(db: Db, user: UserRow, via: Principal['via']): Promise<Principal> {
  const groups = await groupsOfUser(db, user.id);
  return {
    id: user.id,
    name: user.name,
    admin: user.admin || groups.some((g) => g.adminPrivileges),
    groups: groups.map((g) => g.name),
    via,
  };
}

/**
 * issue 14 §Events: `user.created`, `user.deleted`, `user.locked`, published in the transaction of the
 * change. `data` names the user and no more (no personal data), and `by` who acted when someone did.
 */
export function userEvent(
  eventType: 'created' | 'deleted' | 'locked',
  name: string,
  by?: string | null,
): DomainEvent {
  return { type: `user.${eventType}`, payload: { user_name: name, ...(by ? { by } : {}) } };
}

export function passwordIsExpired(user: UserRow, policy: PasswordPolicy, now = new Date()): boolean {
  if (user.passwordExpired) return true;
  if (policy.expiresDays <= 0) return false;
  return user.passwordChangedAt.getTime() + policy.expiresDays * 86_400_000 < now.getTime();
}

export function checkPasswordPolicy(password: string, policy: PasswordPolicy): void {
  const problems = passwordProblems(password, policy);
  if (problems.length > 0) throw new InvalidError(problems.join('; '), AccessErrorCode.WeakPassword);
}

async function toUser(ctx: AccessContext, row: UserRow): Promise<User> {
  const groups = await groupsOfUser(ctx.db, row.id);
  const locked = (await accountLockedUntil(ctx.db, row.name)) !== null;
  const policy = (await ctx.settings.get()).passwordPolicy;
  return {
    name: row.name,
    email: row.email,
    admin: row.admin,
    disabled: row.disabled,
    locked,
    passwordExpired: passwordIsExpired(row, policy),
    profileUpdatable: row.profileUpdatable,
    mfaEnabled: row.mfaSecret !== null,
    realm: row.realm,
    groups: groups.map((g) => g.name),
    lastLoggedIn: row.lastLoginAt?.toISOString() ?? null,
  };
}

export async function requireUser(db: Db, name: string): Promise<UserRow> {
  const user = await findUserByName(db, name);
  if (!user) throw new NotFoundError(`User '${name}' not found`);
  return user;
}

export async function getUser(ctx: AccessContext, name: string): Promise<User> {
  return toUser(ctx, await requireUser(ctx.db, name));
}

export async function listUsers(ctx: AccessContext): Promise<UserRow[]> {
  return listUserRows(ctx.db);
}

async function groupIds(db: Executor, names: string[]): Promise<string[]> {
  const found = await findGroupsByNames(db, names);
  const missing = names.filter((n) => !found.some((g) => g.name.toLowerCase() === n.toLowerCase()));
  if (missing.length > 0) throw new InvalidError(`Unknown group: ${missing.join(', ')}`);
  return found.map((g) => g.id);
}

async function assertNotLastAdmin(db: Db, user: UserRow): Promise<void> {
  if (!user.admin || user.disabled) return;
  const admins = (await listUserRows(db)).filter((u) => u.admin && !u.disabled);
  if (admins.length <= 1)
    throw new ConflictError('The last enabled administrator cannot be removed, disabled or demoted');
}

/**
 * `PUT /api/security/users/{name}`: creates the user (a password is required) or replaces its
 * settings. New users also join every auto-join group.
 */
export async function putUser(
  ctx: AccessContext,
  meta: RequestMeta,
  name: string,
  body: UserWrite,
): Promise<{ created: boolean; user: User }> {
  validField('name', userNameSchema, name);
  if (body.name && body.name.toLowerCase() !== name.toLowerCase())
    throw new InvalidError('The name in the body differs from the name in the path');
  if (name.toLowerCase() === ANONYMOUS_USER) throw new InvalidError(`'${ANONYMOUS_USER}' is reserved`);
  const existing = await findUserByName(ctx.db, name);
  if (!existing) {
    if (!body.password) throw new InvalidError(ACCESS_MESSAGES.passwordRequired);
    return { created: true, user: await createUser(ctx, meta, name, { ...body, password: body.password }) };
  }
  await updateUser(ctx, meta, existing, body);
  return { created: false, user: await getUser(ctx, name) };
}

export async function createUser(
  ctx: AccessContext,
  meta: RequestMeta,
  name: string,
  body: UserWrite & { password: string },
): Promise<User> {
  const settings = await ctx.settings.get();
  checkPasswordPolicy(body.password, settings.passwordPolicy);
  const passwordHash = await hashPassword(body.password);
  await ctx.db.transaction(async (tx) => {
    const db: Executor = tx;
    if (await findUserByName(db, name)) throw new ConflictError(`User '${name}' already exists`);
    const ids = await groupIds(db, body.groups ?? []);
    for (const g of await autoJoinGroups(db)) if (!ids.includes(g.id)) ids.push(g.id);
    const row = await insertUser(db, {
      name,
      email: body.email ?? null,
      passwordHash,
      admin: body.admin ?? false,
      disabled: body.disabled ?? false,
      passwordExpired: body.passwordExpired ?? false,
      profileUpdatable: body.profileUpdatable ?? true,
    });
    await setUserGroups(db, row.id, ids);
    await publish(db, userEvent('created', name, meta.principal?.name));
  });
  permissionsChanged(ctx);
  await ctx.audit.record({ ...auditOf(meta), action: 'user.create', target: name, result: 'success' });
  return getUser(ctx, name);
}

/** Partial update (`POST /api/security/users/{name}`, and `PUT` on an existing user). */
export async function updateUser(ctx: AccessContext, meta: RequestMeta, user: UserRow, body: UserWrite) {
  if (body.name && body.name.toLowerCase() !== user.name.toLowerCase())
    throw new InvalidError('The name in the body differs from the name in the path');
  const settings = await ctx.settings.get();
  if ((body.admin === false && user.admin) || (body.disabled === true && !user.disabled))
    await assertNotLastAdmin(ctx.db, user);
  const set: Partial<UserRow> = {};
  if (body.email !== undefined) set.email = body.email;
  if (body.admin !== undefined) set.admin = body.admin;
  if (body.disabled !== undefined) set.disabled = body.disabled;
  if (body.profileUpdatable !== undefined) set.profileUpdatable = body.profileUpdatable;
  if (body.passwordExpired !== undefined) set.passwordExpired = body.passwordExpired;
  if (body.password) {
    checkPasswordPolicy(body.password, settings.passwordPolicy);
    set.passwordHash = await hashPassword(body.password);
    set.passwordChangedAt = new Date();
    if (body.passwordExpired === undefined) set.passwordExpired = false;
  }
  await ctx.db.transaction(async (tx) => {
    const db: Executor = tx;
    await updateUserRow(db, user.id, set);
    if (body.groups) await setUserGroups(db, user.id, await groupIds(db, body.groups));
  });
  permissionsChanged(ctx);
  await ctx.audit.record({
    ...auditOf(meta),
    action: body.password ? 'user.update.password' : body.disabled ? 'user.disable' : 'user.update',
    target: user.name,
    result: 'success',
  });
}

export async function deleteUser(ctx: AccessContext, meta: RequestMeta, name: string): Promise<void> {
  const user = await requireUser(ctx.db, name);
  await assertNotLastAdmin(ctx.db, user);
  await ctx.db.transaction(async (tx) => {
    const db: Executor = tx;
    await deleteUserRow(db, user);
    await removePrincipalFromTargets(db, 'users', user.name);
    await publish(db, userEvent('deleted', user.name, meta.principal?.name));
  });
  permissionsChanged(ctx);
  await ctx.audit.record({ ...auditOf(meta), action: 'user.delete', target: user.name, result: 'success' });
}

/** Clears a brute-force lockout of the account (`POST /api/security/users/{name}/unlock`). */
/** Clears every sign-in lock of the user (account-wide and per address); also `granary unlock <name>`. */
export async function unlockUser(ctx: AccessContext, meta: RequestMeta, name: string): Promise<void> {
  const user = await requireUser(ctx.db, name);
  const cleared = await clearAccountLocks(ctx.db, user.name);
  await ctx.audit.record({
    ...auditOf(meta),
    action: 'user.unlock',
    target: user.name,
    result: 'success',
    details: { cleared },
  });
}
