import { and, desc, eq, inArray, sql } from 'drizzle-orm';
import type { Executor } from '../../platform/events/index.ts';
import { packages, packageVersions } from './packages.schema.ts';

export type PackageRow = typeof packages.$inferSelect;
export type PackageVersionRow = typeof packageVersions.$inferSelect;
export type PackageVersionInsert = Omit<typeof packageVersions.$inferInsert, 'packageId'>;

export async function upsertPackage(
  db: Executor,
  row: { repositoryId: string; packageType: string; name: string; description: string },
): Promise<PackageRow> {
  const [saved] = await db
    .insert(packages)
    .values(row)
    .onConflictDoUpdate({
      target: [packages.repositoryId, packages.name],
      set: { description: row.description, modifiedAt: sql`now()` },
    })
    .returning();
  return saved!;
}

export async function upsertVersion(
  db: Executor,
  packageId: string,
  row: PackageVersionInsert,
): Promise<void> {
  await db
    .insert(packageVersions)
    .values({ ...row, packageId })
    .onConflictDoUpdate({
      target: [packageVersions.packageId, packageVersions.version],
      set: { ...row, modifiedAt: sql`now()` },
    });
}

/** Versions whose lead file is one of `paths` in a repository; removed, with packages left empty. */
export async function deleteVersionsByLeadPaths(db: Executor, repositoryId: string, paths: string[]) {
  if (paths.length === 0) return;
  const owned = db.select({ id: packages.id }).from(packages).where(eq(packages.repositoryId, repositoryId));
  await db
    .delete(packageVersions)
    .where(and(inArray(packageVersions.leadPath, paths), inArray(packageVersions.packageId, owned)));
  await db.execute(
    sql`delete from ${packages} p where p.repository_id = ${repositoryId}
        and not exists (select 1 from ${packageVersions} v where v.package_id = p.id)`,
  );
}

export async function setLatestVersion(db: Executor, packageId: string, version: string | null) {
  await db.update(packages).set({ latestVersion: version }).where(eq(packages.id, packageId));
}

export async function listVersions(db: Executor, packageId: string): Promise<PackageVersionRow[]> {
  return db
    .select()
    .from(packageVersions)
    .where(eq(packageVersions.packageId, packageId))
    .orderBy(desc(packageVersions.createdAt));
}

export async function findPackage(db: Executor, repositoryId: string, name: string) {
  const [row] = await db
    .select()
    .from(packages)
    .where(and(eq(packages.repositoryId, repositoryId), eq(packages.name, name)));
  return row;
}
