import { and, eq, inArray, sql } from 'drizzle-orm';
import type { Db } from '../../platform/db/index.ts';
import type { Executor } from '../../platform/events/index.ts';
import { groupMembers, groups, loginThrottle, projectMembers, users } from './access.schema.ts';

export type UserRow = typeof users.$inferSelect;
export type GroupRow = typeof groups.$inferSelect;

const lowerName = (column: typeof users.name | typeof groups.name, name: string) =>
  eq(sql`lower(${column})`, name.toLowerCase());

export async function findUserByName(db: Executor, name: string): Promise<UserRow | undefined> {
  const rows = await db.select().from(users).where(lowerName(users.name, name)).limit(1);
  return rows[0];
}

export async function findUserById(db: Db, id: string): Promise<UserRow | undefined> {
  const rows = await db.select().from(users).where(eq(users.id, id)).limit(1);
  return rows[0];
}

export async function countUsers(db: Db): Promise<number> {
  const rows = await db.select({ n: sql<number>`count(*)::int` }).from(users);
  return rows[0]?.n ?? 0;
}

/** Inserts a user unless the name is taken; answers whether it was inserted. */
export async function insertUserIfAbsent(
  db: Db,
  user: { name: string; passwordHash: string | null; admin: boolean; email?: string },
): Promise<boolean> {
  const rows = await db.insert(users).values(user).onConflictDoNothing().returning({ id: users.id });
  return rows.length > 0;
}

export async function insertUser(db: Executor, user: typeof users.$inferInsert): Promise<UserRow> {
  const rows = await db.insert(users).values(user).returning();
  return rows[0]!;
}

export async function updateUserRow(
  db: Executor,
  id: string,
  set: Partial<typeof users.$inferInsert>,
): Promise<void> {
  await db
    .update(users)
    .set({ ...set, updatedAt: new Date() })
    .where(eq(users.id, id));
}

export async function deleteUserRow(db: Executor, user: UserRow): Promise<void> {
  await db
    .delete(projectMembers)
    .where(and(eq(projectMembers.kind, 'user'), eq(projectMembers.name, user.name.toLowerCase())));
  await db.delete(loginThrottle).where(eq(loginThrottle.key, `user:${user.name.toLowerCase()}`));
  await db.delete(users).where(eq(users.id, user.id));
}

export async function listUserRows(db: Db): Promise<UserRow[]> {
  return db.select().from(users).orderBy(users.name);
}

export async function listUserNames(db: Db): Promise<string[]> {
  const rows = await db.select({ name: users.name }).from(users).orderBy(users.name);
  return rows.map((r) => r.name);
}

/** The groups a user belongs to. */
export async function groupsOfUser(db: Db, userId: string): Promise<GroupRow[]> {
  const rows = await db
    .select({ group: groups })
    .from(groupMembers)
    .innerJoin(groups, eq(groupMembers.groupId, groups.id))
    .where(eq(groupMembers.userId, userId))
    .orderBy(groups.name);
  return rows.map((r) => r.group);
}

export async function findGroupByName(db: Executor, name: string): Promise<GroupRow | undefined> {
  const rows = await db.select().from(groups).where(lowerName(groups.name, name)).limit(1);
  return rows[0];
}

export async function findGroupsByNames(db: Executor, names: string[]): Promise<GroupRow[]> {
  if (names.length === 0) return [];
  return db
    .select()
    .from(groups)
    .where(
      inArray(
        sql`lower(${groups.name})`,
        names.map((n) => n.toLowerCase()),
      ),
    );
}

export async function findUsersByNames(db: Executor, names: string[]): Promise<UserRow[]> {
  if (names.length === 0) return [];
  return db
    .select()
    .from(users)
    .where(
      inArray(
        sql`lower(${users.name})`,
        names.map((n) => n.toLowerCase()),
      ),
    );
}

export async function autoJoinGroups(db: Executor): Promise<GroupRow[]> {
  return db.select().from(groups).where(eq(groups.autoJoin, true));
}

export async function setUserGroups(db: Executor, userId: string, groupIds: string[]): Promise<void> {
  await db.delete(groupMembers).where(eq(groupMembers.userId, userId));
  if (groupIds.length > 0)
    await db.insert(groupMembers).values(groupIds.map((groupId) => ({ groupId, userId })));
}

export async function setGroupMembers(db: Executor, groupId: string, userIds: string[]): Promise<void> {
  await db.delete(groupMembers).where(eq(groupMembers.groupId, groupId));
  if (userIds.length > 0)
    await db.insert(groupMembers).values(userIds.map((userId) => ({ groupId, userId })));
}

export async function membersOfGroup(db: Db, groupId: string): Promise<string[]> {
  const rows = await db
    .select({ name: users.name })
    .from(groupMembers)
    .innerJoin(users, eq(groupMembers.userId, users.id))
    .where(eq(groupMembers.groupId, groupId))
    .orderBy(users.name);
  return rows.map((r) => r.name);
}

export async function listGroupRows(db: Db): Promise<GroupRow[]> {
  return db.select().from(groups).orderBy(groups.name);
}

export async function insertGroup(db: Executor, group: typeof groups.$inferInsert): Promise<GroupRow> {
  return (await db.insert(groups).values(group).returning())[0]!;
}

export async function updateGroupRow(
  db: Executor,
  id: string,
  set: Partial<typeof groups.$inferInsert>,
): Promise<void> {
  await db.update(groups).set(set).where(eq(groups.id, id));
}

export async function deleteGroupRow(db: Executor, group: GroupRow): Promise<void> {
  await db
    .delete(projectMembers)
    .where(and(eq(projectMembers.kind, 'group'), eq(projectMembers.name, group.name.toLowerCase())));
  await db.delete(groups).where(eq(groups.id, group.id));
}
