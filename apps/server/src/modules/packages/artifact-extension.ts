import type { BlobStore } from '../../platform/blobs/index.ts';
import type { ArtifactExtension } from '../repositories/repositories.api.ts';
import { collectArchiveEntries, indexArchiveEntries } from './archive-entries.ts';
import type { DownloadCounter } from './downloads.ts';
import { indexStoredFile, unindexPaths } from './packages.service.ts';

/**
 * The packages index's part in the artifact lifecycle, registered into the repositories module's
 * extension point at boot: what formats extract from stored files becomes packages and versions,
 * jars' and zips' entries become archive entries (both in the storing transaction), removed files
 * take theirs with them, and whole downloads are counted.
 */
export function packagesArtifactExtension(deps: {
  blobs: BlobStore;
  downloads: DownloadCounter;
}): ArtifactExtension {
  return {
    id: 'packages',
    // archive search: the entries of jars and zips, read before the transaction
    beforeStore: (file) => collectArchiveEntries(deps.blobs, file.path, file),
    stored: async (tx, file, metadata) => {
      await indexArchiveEntries(tx, file.repositoryId, file.path, file);
      if (!metadata) return;
      await indexStoredFile(
        tx,
        {
          repositoryId: file.repositoryId,
          packageType: file.packageType,
          path: file.path,
          size: file.size,
          sha256: file.sha256,
        },
        metadata,
      );
    },
    removed: (tx, repositoryId, paths) => unindexPaths(tx, repositoryId, paths),
    downloaded: (repositoryId, path) => deps.downloads.count(repositoryId, path),
  };
}
