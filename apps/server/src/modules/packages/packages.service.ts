import semver from 'semver';
import type { PackageMetadata } from '../../formats/sdk/format.ts';
import type { Executor } from '../../platform/events/index.ts';
import { unindexArchiveEntries } from './archive-entries.ts';
import {
  deleteVersionsByLeadPaths,
  listVersionNames,
  refreshAggregates,
  upsertPackage,
  upsertVersion,
} from './packages.queries.ts';

export { collectArchiveEntries, indexArchiveEntries } from './archive-entries.ts';

/** The stored file a version was extracted from. */
export interface IndexedFile {
  repositoryId: string;
  packageType: string;
  path: string;
  size: number;
  sha256: string;
}

/** A semantic-version release: valid semver (loosely: a leading `v` is allowed) without a pre-release part. */
export function isRelease(version: string): boolean {
  return !!semver.valid(version, { loose: true }) && !semver.prerelease(version, { loose: true });
}

/** The highest release by semantic version when the versions are semver, else the newest. */
export function latestOf(versions: { version: string; createdAt: Date }[]): string | null {
  const valid = versions.filter((v) => semver.valid(v.version, { loose: true }));
  const releases = valid.filter((v) => !semver.prerelease(v.version, { loose: true }));
  const pool = releases.length > 0 ? releases : valid;
  if (pool.length > 0)
    return pool.reduce((a, b) => (semver.gt(b.version, a.version, { loose: true }) ? b : a)).version;
  const newest = [...versions].sort((a, b) => b.createdAt.getTime() - a.createdAt.getTime())[0];
  return newest?.version ?? null;
}

async function refresh(tx: Executor, packageId: string) {
  await refreshAggregates(tx, packageId, latestOf(await listVersionNames(tx, packageId)));
}

/**
 * Records what a format extracted from a stored file, in the transaction that stores it. Only lead
 * files make versions; other files of a package (signatures, metadata documents) are not indexed.
 */
export async function indexStoredFile(tx: Executor, file: IndexedFile, meta: PackageMetadata): Promise<void> {
  if (!meta.leadFile) return;
  const pkg = await upsertPackage(tx, {
    repositoryId: file.repositoryId,
    packageType: file.packageType,
    name: meta.name,
    description: meta.description ?? '',
  });
  await upsertVersion(tx, pkg.id, {
    version: meta.version,
    description: meta.description ?? '',
    licenses: meta.licenses ?? [],
    keywords: meta.keywords ?? [],
    dependencies: meta.dependencies ?? [],
    readme: meta.readme ?? null,
    leadPath: file.path,
    size: meta.size ?? file.size,
    sha256: file.sha256,
    release: isRelease(meta.version),
  });
  await refresh(tx, pkg.id);
}

/** Files removed from a repository: the versions they stood for go, packages left empty, and archive entries. */
export async function unindexPaths(tx: Executor, repositoryId: string, paths: string[]): Promise<void> {
  const touched = await deleteVersionsByLeadPaths(tx, repositoryId, paths);
  for (const id of touched) await refresh(tx, id);
  await unindexArchiveEntries(tx, repositoryId, paths);
}
