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

/** Versions whose lead file is one of `paths` in a repository; removed, with packages left empty. Returns the packages that lost versions. */
export async function deleteVersionsByLeadPaths(
  db: Executor,
  repositoryId: string,
  paths: string[],
): Promise<string[]> {
  if (paths.length === 0) return [];
  const owned = db.select({ id: packages.id }).from(packages).where(eq(packages.repositoryId, repositoryId));
  const touched = new Set<string>();
  for (let i = 0; i < paths.length; i += 1000) {
    const gone = await db
      .delete(packageVersions)
      .where(
        and(
          inArray(packageVersions.leadPath, paths.slice(i, i + 1000)),
          inArray(packageVersions.packageId, owned),
        ),
      )
      .returning({ packageId: packageVersions.packageId });
    for (const g of gone) touched.add(g.packageId);
  }
  if (touched.size === 0) return [];
  await db.execute(
    sql`delete from ${packages} p where p.repository_id = ${repositoryId}
        and not exists (select 1 from ${packageVersions} v where v.package_id = p.id)`,
  );
  return [...touched];
}

/** Recomputes a package row's aggregates from its versions (count, tags, licences, downloads, latest). */
export async function refreshAggregates(db: Executor, packageId: string, latestVersion: string | null) {
  await db.execute(sql`
    update ${packages} p set
      latest_version = ${latestVersion},
      versions_count = s.n,
      downloads = s.downloads,
      tags = s.tags,
      licenses = s.licenses
    from (
      select count(*)::int as n,
        coalesce(sum(v.downloads), 0)::bigint as downloads,
        coalesce((select jsonb_agg(distinct t) from ${packageVersions} v2, jsonb_array_elements_text(v2.keywords) t
                  where v2.package_id = ${packageId}), '[]'::jsonb) as tags,
        coalesce((select jsonb_agg(distinct l) from ${packageVersions} v3, jsonb_array_elements_text(v3.licenses) l
                  where v3.package_id = ${packageId}), '[]'::jsonb) as licenses
      from ${packageVersions} v where v.package_id = ${packageId}
    ) s
    where p.id = ${packageId}`);
}

export async function listVersions(db: Executor, packageId: string): Promise<PackageVersionRow[]> {
  return db
    .select()
    .from(packageVersions)
    .where(eq(packageVersions.packageId, packageId))
    .orderBy(desc(packageVersions.createdAt));
}

/** Names and creation times of a package's versions (what `latestOf` needs; no readmes read). */
export async function listVersionNames(db: Executor, packageId: string) {
  return db
    .select({ version: packageVersions.version, createdAt: packageVersions.createdAt })
    .from(packageVersions)
    .where(eq(packageVersions.packageId, packageId));
}

export async function findPackage(db: Executor, repositoryId: string, name: string) {
  const [row] = await db
    .select()
    .from(packages)
    .where(and(eq(packages.repositoryId, repositoryId), eq(packages.name, name)));
  return row;
}

/** Adds client downloads to versions (by lead file) and their packages. */
export async function addDownloads(db: Executor, repositoryId: string, counts: Map<string, number>) {
  for (const [path, n] of counts) {
    const rows = await db.execute(sql`
      update ${packageVersions} v set downloads = v.downloads + ${n}
      from ${packages} p
      where p.id = v.package_id and p.repository_id = ${repositoryId} and v.lead_path = ${path}
      returning v.package_id`);
    const ids = (rows as unknown as { rows: { package_id: string }[] }).rows ?? [];
    for (const { package_id } of ids)
      await db.execute(sql`update ${packages} set downloads = downloads + ${n} where id = ${package_id}`);
  }
}
