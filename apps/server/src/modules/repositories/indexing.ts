import { Readable } from 'node:stream';
import type { PackageMetadata } from '../../formats/sdk/format.ts';
import { ArchiveLimitError } from '../../platform/archives/bounded-archive.ts';
import type { Executor } from '../../platform/events/index.ts';
import type { StoredArtifact } from './artifact-extensions.ts';
import type { RepositoriesContext } from './context.ts';
import type { RepoConfig } from './repositories.service.ts';

export interface StoredBlob {
  sha256: string;
  size: number;
}

const storedArtifact = (repo: RepoConfig, path: string, blob: StoredBlob): StoredArtifact => ({
  repositoryId: repo.id,
  repositoryKey: repo.key,
  packageType: repo.packageType,
  path,
  sha256: blob.sha256,
  size: blob.size,
});

/**
 * Before the storing transaction: the artifact extensions read what they need of the bytes (the
 * packages index: an archive's entries), then the repository's format extracts the file's package
 * metadata. A file the format cannot read is stored all the same (it is only not indexed); the
 * failure is logged. An archive past the format's limits (ArchiveLimitError, a 400) is not stored at all.
 */
export async function extractFor(
  ctx: RepositoriesContext,
  repo: RepoConfig,
  path: string,
  blob: StoredBlob,
): Promise<PackageMetadata | null> {
  await ctx.artifactExtensions.beforeStore(storedArtifact(repo, path, blob));
  const format = ctx.formats.get(repo.packageType);
  if (!format) return null;
  try {
    return await format.extractMetadata({
      path,
      size: blob.size,
      sha256: blob.sha256,
      open: async () => Readable.from(await ctx.blobs.get(blob.sha256)),
    });
  } catch (err) {
    // A decompression bomb, or an archive past the reader's limits: refused, never stored.
    if (err instanceof ArchiveLimitError) throw err;
    ctx.log.warn({ repo: repo.key, path, err: (err as Error).message }, 'package metadata not extracted');
    return null;
  }
}

/** In the storing transaction: the artifact extensions hear of the file and its metadata (the packages index). */
export async function notifyStored(
  ctx: RepositoriesContext,
  tx: Executor,
  repo: RepoConfig,
  path: string,
  blob: StoredBlob,
  meta: PackageMetadata | null,
): Promise<void> {
  await ctx.artifactExtensions.stored(tx, storedArtifact(repo, path, blob), meta);
}

/** In the transaction that removes (or replaces) files: the artifact extensions hear of the paths. */
export async function notifyRemoved(
  ctx: RepositoriesContext,
  tx: Executor,
  repositoryId: string,
  paths: string[],
): Promise<void> {
  await ctx.artifactExtensions.removed(tx, repositoryId, paths);
}
