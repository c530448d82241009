import { eq, sql } from 'drizzle-orm';
import type { Db } from '../../platform/db/index.ts';
import type { Executor } from '../../platform/events/index.ts';
import { permissionTargets } from './access.schema.ts';

export type PermissionTargetRow = typeof permissionTargets.$inferSelect;

export async function listTargetRows(db: Executor): Promise<PermissionTargetRow[]> {
  return db.select().from(permissionTargets).orderBy(permissionTargets.name);
}

export async function findTargetByName(db: Db, name: string): Promise<PermissionTargetRow | undefined> {
  const rows = await db
    .select()
    .from(permissionTargets)
    .where(eq(sql`lower(${permissionTargets.name})`, name.toLowerCase()))
    .limit(1);
  return rows[0];
}

export async function upsertTarget(db: Db, name: string, resources: unknown): Promise<'created' | 'updated'> {
  const existing = await findTargetByName(db, name);
  if (existing) {
    await db
      .update(permissionTargets)
      .set({ resources, updatedAt: new Date() })
      .where(eq(permissionTargets.id, existing.id));
    return 'updated';
  }
  await db.insert(permissionTargets).values({ name, resources });
  return 'created';
}

export async function deleteTargetRow(db: Db, id: string): Promise<void> {
  await db.delete(permissionTargets).where(eq(permissionTargets.id, id));
}

export async function updateTargetResources(db: Executor, id: string, resources: unknown): Promise<void> {
  await db
    .update(permissionTargets)
    .set({ resources, updatedAt: new Date() })
    .where(eq(permissionTargets.id, id));
}
