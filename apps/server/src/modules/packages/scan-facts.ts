import { and, eq, inArray, sql } from 'drizzle-orm';
import type { Executor } from '../../platform/events/index.ts';
import { packages, packageVersions, type SeverityCounts } from './packages.schema.ts';

/** The package version a stored file is the lead file of (tarball, wheel, jar, image manifest…). */
export interface LeadVersion {
  packageId: string;
  packageType: string;
  name: string;
  version: string;
}

/** The version whose lead file is `path` in the repository; null when the file leads none. */
export async function versionOfLeadFile(
  db: Executor,
  repositoryId: string,
  path: string,
): Promise<LeadVersion | null> {
  const [row] = await db
    .select({
      packageId: packages.id,
      packageType: packages.packageType,
      name: packages.name,
      version: packageVersions.version,
    })
    .from(packageVersions)
    .innerJoin(packages, eq(packages.id, packageVersions.packageId))
    .where(and(eq(packages.repositoryId, repositoryId), eq(packageVersions.leadPath, path)))
    .limit(1);
  return row ?? null;
}

/**
 * Which of `paths` lead a version in the repository: one query for a batch of files (issue 24: an image
 * push's manifest and layers asked `versionOfLeadFile` once each).
 */
export async function leadFilesAmong(
  db: Executor,
  repositoryId: string,
  paths: string[],
): Promise<Set<string>> {
  const leads = new Set<string>();
  for (let i = 0; i < paths.length; i += 1000) {
    const rows = await db
      .select({ path: packageVersions.leadPath })
      .from(packageVersions)
      .innerJoin(packages, eq(packages.id, packageVersions.packageId))
      .where(
        and(
          eq(packages.repositoryId, repositoryId),
          inArray(packageVersions.leadPath, paths.slice(i, i + 1000)),
        ),
      );
    for (const row of rows) leads.add(row.path);
  }
  return leads;
}

/**
 * Issue 16: a scan's facts on the version its lead file stands for — vulnerability counts by lower-case
 * severity (zero counts dropped), CVE ids, and the licences found (kept as they were when the scan found
 * none) — and the package row's aggregates (its versions' counts summed, their licences' union).
 * False when the file leads no version.
 */
export async function setVersionScanFacts(
  db: Executor,
  repositoryId: string,
  leadPath: string,
  facts: { vulnerabilities: SeverityCounts; cves: string[]; licenses: string[] },
): Promise<boolean> {
  // The version found and updated in one statement (issue 24: a statement fewer per scan).
  const updated = await db
    .update(packageVersions)
    .set({
      vulnerabilities: facts.vulnerabilities,
      cves: facts.cves,
      ...(facts.licenses.length > 0 ? { licenses: facts.licenses } : {}),
    })
    .where(
      and(
        eq(packageVersions.leadPath, leadPath),
        sql`${packageVersions.packageId} IN (SELECT ${packages.id} FROM ${packages} WHERE ${packages.repositoryId} = ${repositoryId})`,
      ),
    )
    .returning({ packageId: packageVersions.packageId });
  if (updated.length === 0) return false;
  const ids = [...new Set(updated.map((u) => u.packageId))];
  await db.execute(sql`
    update ${packages} p set
      vulnerabilities = coalesce((
        select jsonb_object_agg(k, n) from (
          select e.key as k, sum((e.value)::int) as n
          from ${packageVersions} v, jsonb_each_text(v.vulnerabilities) e
          where v.package_id = p.id
          group by e.key having sum((e.value)::int) > 0
        ) s), '{}'::jsonb),
      licenses = coalesce((select jsonb_agg(distinct l) from ${packageVersions} v3, jsonb_array_elements_text(v3.licenses) l
                where v3.package_id = p.id), '[]'::jsonb)
    where p.id IN (${sql.join(
      ids.map((id) => sql`${id}`),
      sql`, `,
    )})`);
  return true;
}

/** The lead file of a version of a package in the repository; null when there is none. */
export async function leadPathOfVersion(
  db: Executor,
  repositoryId: string,
  name: string,
  version: string,
): Promise<string | null> {
  const [row] = await db
    .select({ leadPath: packageVersions.leadPath })
    .from(packageVersions)
    .innerJoin(packages, eq(packages.id, packageVersions.packageId))
    .where(
      and(
        eq(packages.repositoryId, repositoryId),
        eq(packages.name, name),
        eq(packageVersions.version, version),
      ),
    )
    .limit(1);
  return row?.leadPath ?? null;
}

/** Every version's lead file in the repository. */
export async function leadPathsOfRepository(db: Executor, repositoryId: string): Promise<string[]> {
  const rows = await db
    .select({ leadPath: packageVersions.leadPath })
    .from(packageVersions)
    .innerJoin(packages, eq(packages.id, packageVersions.packageId))
    .where(eq(packages.repositoryId, repositoryId));
  return rows.map((r) => r.leadPath);
}
