import { Readable } from 'node:stream';
import type { PackageMetadata } from '../../formats/sdk/format.ts';
import { ArchiveLimitError } from '../../platform/archives/bounded-archive.ts';
import type { Executor } from '../../platform/events/index.ts';
import {
  collectArchiveEntries,
  indexArchiveEntries,
  indexStoredFile,
  unindexPaths,
} from '../packages/packages.service.ts';
import type { RepositoriesContext } from './context.ts';
import type { RepoConfig } from './repositories.service.ts';

export interface StoredBlob {
  sha256: string;
  size: number;
}

/**
 * What the repository's format extracts from a file just stored, for the packages index. A file the
 * format cannot read is stored all the same (it is only not indexed); the failure is logged. An
 * archive past the format's limits (ArchiveLimitError, a 400) is not stored at all.
 */
export async function extractFor(
  ctx: RepositoriesContext,
  repo: RepoConfig,
  path: string,
  blob: StoredBlob,
): Promise<PackageMetadata | null> {
  await collectArchiveEntries(ctx.blobs, path, blob); // archive search: entries of jars and zips
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

/** Writes the extracted metadata in the storing transaction. */
export async function indexStored(
  tx: Executor,
  repo: RepoConfig,
  path: string,
  blob: StoredBlob,
  meta: PackageMetadata | null,
): Promise<void> {
  await indexArchiveEntries(tx, repo.id, path, blob);
  if (!meta) return;
  await indexStoredFile(
    tx,
    { repositoryId: repo.id, packageType: repo.packageType, path, size: blob.size, sha256: blob.sha256 },
    meta,
  );
}

export { unindexPaths };
