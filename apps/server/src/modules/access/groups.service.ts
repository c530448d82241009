import type { Group, GroupWrite } from '@granary/contracts';
import { userNameSchema } from '@granary/contracts';
import type { Db } from '../../platform/db/index.ts';
import { InvalidError, NotFoundError, validField } from '../../platform/errors.ts';
import type { Executor } from '../../platform/events/index.ts';
import {
  deleteGroupRow,
  findGroupByName,
  findUsersByNames,
  type GroupRow,
  insertGroup,
  listGroupRows,
  membersOfGroup,
  setGroupMembers,
  updateGroupRow,
} from './access.queries.ts';
import { auditOf } from './audit.service.ts';
import { type AccessContext, permissionsChanged, type RequestMeta } from './context.ts';
import { removePrincipalFromTargets } from './permissions.service.ts';

async function toGroup(db: Db, row: GroupRow): Promise<Group> {
  return {
    name: row.name,
    description: row.description,
    adminPrivileges: row.adminPrivileges,
    autoJoin: row.autoJoin,
    realm: row.realm,
    members: await membersOfGroup(db, row.id),
  };
}

async function requireGroup(db: Db, name: string): Promise<GroupRow> {
  const row = await findGroupByName(db, name);
  if (!row) throw new NotFoundError(`Group '${name}' not found`);
  return row;
}

export async function getGroup(ctx: AccessContext, name: string): Promise<Group> {
  return toGroup(ctx.db, await requireGroup(ctx.db, name));
}

export function listGroups(ctx: AccessContext): Promise<GroupRow[]> {
  return listGroupRows(ctx.db);
}

async function userIds(db: Executor, names: string[]): Promise<string[]> {
  const found = await findUsersByNames(db, names);
  const missing = names.filter((n) => !found.some((u) => u.name.toLowerCase() === n.toLowerCase()));
  if (missing.length > 0) throw new InvalidError(`Unknown user: ${missing.join(', ')}`);
  return found.map((u) => u.id);
}

/** `PUT /api/security/groups/{name}`: creates (201) or updates the group; `members` replaces the list. */
export async function putGroup(
  ctx: AccessContext,
  meta: RequestMeta,
  name: string,
  body: GroupWrite,
): Promise<{ created: boolean; group: Group }> {
  validField('name', userNameSchema, name);
  if (body.name && body.name.toLowerCase() !== name.toLowerCase())
    throw new InvalidError('The name in the body differs from the name in the path');
  let created = false;
  await ctx.db.transaction(async (tx) => {
    const db: Executor = tx;
    let row = await findGroupByName(db, name);
    if (!row) {
      created = true;
      row = await insertGroup(db, {
        name,
        description: body.description ?? '',
        adminPrivileges: body.adminPrivileges ?? false,
        autoJoin: body.autoJoin ?? false,
      });
    } else {
      const set: Partial<GroupRow> = {};
      if (body.description !== undefined) set.description = body.description;
      if (body.adminPrivileges !== undefined) set.adminPrivileges = body.adminPrivileges;
      if (body.autoJoin !== undefined) set.autoJoin = body.autoJoin;
      if (Object.keys(set).length > 0) await updateGroupRow(db, row.id, set);
    }
    if (body.members) await setGroupMembers(db, row.id, await userIds(db, body.members));
  });
  permissionsChanged(ctx);
  await ctx.audit.record({
    ...auditOf(meta),
    action: created ? 'group.create' : 'group.update',
    target: name,
    result: 'success',
  });
  return { created, group: await getGroup(ctx, name) };
}

export async function deleteGroup(ctx: AccessContext, meta: RequestMeta, name: string): Promise<void> {
  const row = await requireGroup(ctx.db, name);
  await ctx.db.transaction(async (tx) => {
    const db: Executor = tx;
    await deleteGroupRow(db, row);
    await removePrincipalFromTargets(db, 'groups', row.name);
  });
  permissionsChanged(ctx);
  await ctx.audit.record({ ...auditOf(meta), action: 'group.delete', target: row.name, result: 'success' });
}
