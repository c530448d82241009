import { and, desc, eq, inArray, type SQL, sql } from 'drizzle-orm';
import { type Db, queryRows } from '../../platform/db/index.ts';
import type { Executor } from '../../platform/events/index.ts';
import { storedFileJoin } from '../repositories/repositories.api.ts';
import { archiveEntries, packages, packageVersions, type SeverityCounts } from './packages.schema.ts';

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

// ---------- the read side (packages.read.ts): package rows `p`, version rows `v` ----------

/** A package row as the list reads it: its lower-cased name (`l`) and its latest version's lead path. */
export interface PackageListRow {
  id: string;
  repository_id: string;
  package_type: string;
  name: string;
  l: string;
  /** lead path of the latest version */
  latest_lead: string | null;
  description: string;
  latest_version: string | null;
  versions_count: number;
  tags: string[];
  licenses: string[];
  downloads: string | number;
  vulnerabilities: SeverityCounts;
  risk_level: string | null;
  created_at: string | Date;
  modified_at: string | Date;
}

/** A package's key in list order: lower-cased name, name, type, byte-wise (the name index's order). */
export const PACKAGE_KEY = sql`lower(p.name) collate "C", p.name collate "C", p.package_type collate "C"`;
const keyOrder = (d: SQL) =>
  sql`lower(p.name) collate "C" ${d}, p.name collate "C" ${d}, p.package_type collate "C" ${d}`;
const direction = (ascending: boolean) => (ascending ? sql`asc` : sql`desc`);
const listColumns = () => sql`p.*, lower(p.name) collate "C" as l,
  (select lv.lead_path from ${packageVersions} lv where lv.package_id = p.id and lv.version = p.latest_version) as latest_lead`;
const uuids = (ids: string[]) =>
  sql.join(
    ids.map((id) => sql`${id}::uuid`),
    sql`, `,
  );

/** Package rows in name order, straight off the name index (a package in several repositories is consecutive rows). */
export function packageRowsInNameOrder(db: Db, where: SQL, ascending: boolean, limit: number) {
  return queryRows<PackageListRow>(
    db,
    sql`select ${listColumns()} from ${packages} p where ${where}
        order by ${keyOrder(direction(ascending))} limit ${limit}`,
  );
}

/**
 * Below this many matches, a name-anywhere search reads its matches first and sorts them; at or above it,
 * it walks the name index in order (see `packageRowsMatchingAnywhere`).
 */
export const SPARSE_NAME_MATCHES = 2000;

/**
 * Package rows whose name matches anywhere (issue 22), in name order. The planner, estimating ~1 % of the
 * rows for any `like '%abc%'`, walks the name index in order and filters every row it meets, hoping to reach
 * `limit` early: measured on the bench's 100,000 packages (EXPLAIN ANALYZE), "a3f" matched 223 names and
 * that walk read 58,000 buffers in 420–700 ms, where the trigram index then a sort read 674 in under 3 ms.
 * The walk only wins when matches are dense, so the matches are counted first through the trigram index,
 * stopping at `SPARSE_NAME_MATCHES`: fewer, and they are read first (a materialized CTE keeps the planner
 * from walking the name index) and sorted; as many or more, and the ordered walk meets `limit` of them soon.
 */
export async function packageRowsMatchingAnywhere(db: Db, where: SQL, ascending: boolean, limit: number) {
  const [count] = await queryRows<{ n: number }>(
    db,
    sql`select count(*)::int as n from (select 1 from ${packages} p where ${where} limit ${SPARSE_NAME_MATCHES}) s`,
  );
  if ((count?.n ?? 0) >= SPARSE_NAME_MATCHES) return packageRowsInNameOrder(db, where, ascending, limit);
  return queryRows<PackageListRow>(
    db,
    sql`with matches as materialized (select * from ${packages} p where ${where})
        select ${listColumns()} from matches p
        order by ${keyOrder(direction(ascending))} limit ${limit}`,
  );
}

/** Package keys (`l`, `n`, `t`) by an aggregate over their rows (`s`, as text), `having` past a cursor. */
export function packageKeysInSortOrder(
  db: Db,
  where: SQL,
  having: SQL | undefined,
  sort: SQL,
  ascending: boolean,
  limit: number,
) {
  const d = direction(ascending);
  return queryRows<{ l: string; n: string; t: string; s?: string | number | Date }>(
    db,
    sql`select lower(p.name) collate "C" as l, p.name collate "C" as n, p.package_type collate "C" as t,
          (${sort})::text as s
        from ${packages} p where ${where}
        group by 1, 2, 3
        ${having ? sql`having ${having}` : sql``}
        order by ${sort} ${d}, 1 ${d}, 2 ${d}, 3 ${d}
        limit ${limit}`,
  );
}

/** Every row whose lower-cased name is one of these, in these repositories (null: all), looked up by the name index. */
export function packageRowsNamed(db: Db, lowerNames: string[], repositoryIds: string[] | null) {
  return queryRows<PackageListRow>(
    db,
    sql`select ${listColumns()} from ${packages} p
        where lower(p.name) collate "C" in (${sql.join(
          lowerNames.map((l) => sql`${l}`),
          sql`, `,
        )})
        ${repositoryIds ? sql`and p.repository_id in (${uuids(repositoryIds)})` : sql``}`,
  );
}

/** What merging needs of these packages' versions: names, lead paths, release flags, creation times. */
export function versionSummaries(db: Db, packageIds: string[]) {
  return queryRows<{
    package_id: string;
    version: string;
    lead_path: string;
    release: boolean;
    created_at: string | Date;
  }>(
    db,
    sql`select package_id, version, lead_path, release, created_at from ${packageVersions}
        where package_id in (${uuids(packageIds)})`,
  );
}

/** A version row with its package's repository, as `versions(...)` reads it. */
export interface VersionListRow {
  repository_id: string;
  version: string;
  description: string;
  licenses: string[];
  dependencies: { name: string; range?: string; scope?: string }[];
  lead_path: string;
  size: string | number;
  downloads: string | number;
  release: boolean;
  vulnerabilities: SeverityCounts;
  risk_level: string | null;
  created_at: string | Date;
  modified_at: string | Date;
}

/** Version rows `v` joined to their package rows `p`, where every clause holds. */
export function versionRowsWhere(db: Db, where: SQL[]) {
  return queryRows<VersionListRow>(
    db,
    sql`select p.repository_id, v.version, v.description, v.licenses, v.dependencies, v.lead_path, v.size,
          v.downloads, v.release, v.vulnerabilities, v.risk_level, v.created_at, v.modified_at
        from ${packageVersions} v join ${packages} p on p.id = v.package_id
        where ${sql.join(where, sql` and `)}`,
  );
}

/** The readme and dependencies of the version whose lead file is `leadPath` in a repository. */
export async function findVersionByLead(db: Executor, repositoryId: string, leadPath: string) {
  const [row] = await db
    .select({ readme: packageVersions.readme, dependencies: packageVersions.dependencies })
    .from(packageVersions)
    .innerJoin(packages, eq(packages.id, packageVersions.packageId))
    .where(and(eq(packages.repositoryId, repositoryId), eq(packageVersions.leadPath, leadPath)));
  return row;
}

// ---------- archive entries search (the search module, through packages.api.ts) ----------

/** Which archive entries a search wants; patterns are `LIKE` patterns (see `likePattern`). */
export interface ArchiveEntryMatch {
  /** the entry's file name, lower-cased: like a pattern, or one of these names */
  name: { lowerCaseLike: string } | { lowerCaseAnyOf: string[] };
  /** `.class` entries only */
  classesOnly?: boolean;
  /** no inner classes (`Outer$Inner.class`) */
  excludeInnerClasses?: boolean;
  /** the archive's path in its repository */
  archivePathLike?: string;
}

export interface ArchiveEntryHit {
  repository_id: string;
  path: string;
  size: string | number;
  modified_at: string | Date;
  sha256: string;
  entry: string;
}

/** Entries of stored archives in these repositories, by entry name, archive path and entry, at most `limit`. */
export async function searchArchiveEntries(
  db: Db,
  repositoryIds: string[],
  match: ArchiveEntryMatch,
  limit: number,
): Promise<ArchiveEntryHit[]> {
  if (repositoryIds.length === 0) return [];
  const conds: SQL[] = [];
  const { name } = match;
  if ('lowerCaseLike' in name) conds.push(sql`lower(e.name) collate "C" like ${name.lowerCaseLike}`);
  else if (name.lowerCaseAnyOf.length === 1)
    conds.push(sql`lower(e.name) collate "C" = ${name.lowerCaseAnyOf[0]}`);
  else
    conds.push(
      sql`lower(e.name) collate "C" in (${sql.join(
        name.lowerCaseAnyOf.map((n) => sql`${n}`),
        sql`, `,
      )})`,
    );
  if (match.classesOnly) conds.push(sql`e.name like '%.class'`);
  if (match.excludeInnerClasses) conds.push(sql`e.name not like '%$%'`);
  if (match.archivePathLike !== undefined) conds.push(sql`e.path like ${match.archivePathLike}`);
  // the archive's stored file, read in the same statement (the repositories module's join)
  const file = storedFileJoin(sql`e.repository_id`, sql`e.path`);
  return queryRows<ArchiveEntryHit>(
    db,
    sql`select ${file.repositoryId} as repository_id, ${file.path} as path, ${file.size} as size,
          ${file.modifiedAt} as modified_at, ${file.sha256} as sha256, e.entry
        from ${archiveEntries} e ${file.join}
        where ${file.repositoryId} in (${uuids(repositoryIds)}) and ${sql.join(conds, sql` and `)}
        order by e.name, ${file.path}, e.entry limit ${limit}`,
  );
}
