import { and, eq } from 'drizzle-orm';
import type { Executor } from '../../platform/events/index.ts';
import { packages, packageVersions, type SeverityCounts } from './packages.schema.ts';

/**
 * The vulnerability counts (issue 16's scan facts) of the package version whose lead file is `path`
 * in the repository; null when the file leads no version. Builds (issue 19) show them per dependency.
 */
export async function vulnerabilitiesOfLeadFile(
  db: Executor,
  repositoryId: string,
  path: string,
): Promise<SeverityCounts | null> {
  const [row] = await db
    .select({ vulnerabilities: packageVersions.vulnerabilities })
    .from(packageVersions)
    .innerJoin(packages, eq(packages.id, packageVersions.packageId))
    .where(and(eq(packages.repositoryId, repositoryId), eq(packageVersions.leadPath, path)))
    .limit(1);
  return row ? row.vulnerabilities : null;
}
