import { and, eq, inArray, or, sql } from 'drizzle-orm';
import type { Db } from '../../platform/db/index.ts';
import { projectMembers, projects } from './access.schema.ts';

export type ProjectRow = typeof projects.$inferSelect;
export type ProjectMemberRow = typeof projectMembers.$inferSelect;
export type MemberKind = 'user' | 'group';

export async function listProjectRows(db: Db): Promise<ProjectRow[]> {
  return db.select().from(projects).orderBy(projects.key);
}

export async function findProjectRow(db: Db, key: string): Promise<ProjectRow | undefined> {
  return (await db.select().from(projects).where(eq(projects.key, key)).limit(1))[0];
}

export async function countProjects(db: Db): Promise<number> {
  return (await db.select({ n: sql<number>`count(*)::int` }).from(projects))[0]?.n ?? 0;
}

/** Inserts the project unless the key is taken; answers whether it was inserted. */
export async function insertProjectIfAbsent(db: Db, row: typeof projects.$inferInsert): Promise<boolean> {
  const rows = await db.insert(projects).values(row).onConflictDoNothing().returning({ key: projects.key });
  return rows.length > 0;
}

export async function updateProjectRow(
  db: Db,
  key: string,
  set: Partial<typeof projects.$inferInsert>,
): Promise<void> {
  if (Object.keys(set).length === 0) return;
  await db.update(projects).set(set).where(eq(projects.key, key));
}

export async function deleteProjectRow(db: Db, key: string): Promise<boolean> {
  const rows = await db.delete(projects).where(eq(projects.key, key)).returning({ key: projects.key });
  return rows.length > 0;
}

/** Membership rows of a user (by lower-cased name) and of the groups named (lower-cased). */
export async function membershipsOf(
  db: Db,
  userName: string,
  groupNames: string[],
): Promise<ProjectMemberRow[]> {
  const user = and(eq(projectMembers.kind, 'user'), eq(projectMembers.name, userName));
  const where =
    groupNames.length > 0
      ? or(user, and(eq(projectMembers.kind, 'group'), inArray(projectMembers.name, groupNames)))
      : user;
  return db.select().from(projectMembers).where(where);
}

export async function listMemberRows(
  db: Db,
  projectKey: string,
  kind: MemberKind,
): Promise<ProjectMemberRow[]> {
  return db
    .select()
    .from(projectMembers)
    .where(and(eq(projectMembers.projectKey, projectKey), eq(projectMembers.kind, kind)))
    .orderBy(projectMembers.name);
}

export async function upsertMemberRow(db: Db, row: typeof projectMembers.$inferInsert): Promise<void> {
  await db
    .insert(projectMembers)
    .values(row)
    .onConflictDoUpdate({
      target: [projectMembers.projectKey, projectMembers.kind, projectMembers.name],
      set: { roles: row.roles },
    });
}

export async function deleteMemberRow(
  db: Db,
  projectKey: string,
  kind: MemberKind,
  name: string,
): Promise<boolean> {
  const rows = await db
    .delete(projectMembers)
    .where(
      and(
        eq(projectMembers.projectKey, projectKey),
        eq(projectMembers.kind, kind),
        eq(projectMembers.name, name),
      ),
    )
    .returning({ name: projectMembers.name });
  return rows.length > 0;
}
