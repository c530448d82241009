/**
 * The repositories module's public surface. Another module (packages, search, …) imports this file
 * and nothing else of repositories: reads of repositories and stored files, the permission helpers,
 * and the artifact extension point it registers into at boot. The plugin itself is `index.ts`, which
 * only `app.ts` imports; table definitions reference a repository through `foreign-keys.ts`.
 */
import { HIDDEN_REPOSITORY_TYPES } from '@granary/contracts';
import type { Db } from '../../platform/db/index.ts';
import type { Principal } from '../../platform/http/access-control.ts';
import type { Authorizer } from '../access/index.ts';
import { listRepositoryHeadRows } from './repositories.queries.ts';
import type { RepositoryClass } from './repositories.service.ts';

export type { ArtifactExtension, ArtifactExtensionPoint, StoredArtifact } from './artifact-extensions.ts';
export { ExpiredArtifactError } from './artifact-extensions.ts';
export {
  type ArtifactRow,
  filesOfVersion,
  findArtifact,
  type StoredFileHit,
  type StoredFileMatch,
  searchStoredFiles,
  storedFileJoin,
  type VersionLayout,
} from './artifacts.queries.ts';
/** Release bundles (issue 19): files stored by checksum into several repositories in the caller's transaction. */
export { deleteArtifacts, type LinkInput, linkArtifacts } from './artifacts.service.ts';
export { authorize, MAX_VIRTUAL_DEPTH, type RepositoriesContext, repositoryHidden } from './context.ts';
export { createSystemHandle } from './format-context.ts';
export { installCommandOf, versionDetailsOf } from './format-hooks.ts';
export { isInternalPath } from './internal-paths.ts';
/** Issue 21: files parked out of `artifacts` (the archive's table, like the trash's) and put back. */
export {
  type ParkedFile,
  type PutBackFile,
  parkArtifacts,
  putBack,
  takeOutArtifacts,
} from './parked-artifacts.ts';
export { RepoPath } from './repo-path.ts';
export {
  createRepository,
  findRepository,
  forgetConfigs,
  listRepositories,
  type RepoConfig,
  type RepositoryClass,
} from './repositories.service.ts';
export { ensureSystemRepository } from './system-repositories.ts';
export { type FileTransfer, type TransferOutcome, transferFiles } from './transfer-files.ts';
export { trashPolicy, trashUsage } from './trash.service.ts';

/** A repository as lists of other modules see it: no settings but a virtual one's member keys. */
export interface RepositoryHead {
  id: string;
  key: string;
  rclass: RepositoryClass;
  packageType: string;
  /** a virtual repository's member keys, in order (empty for others) */
  members: string[];
}

/** Every repository (no order). */
export async function listRepositoryHeads(db: Db): Promise<RepositoryHead[]> {
  return (await listRepositoryHeadRows(db)).map((r) => {
    const list = (r.settings as { virtual?: { repositories?: unknown } } | null)?.virtual?.repositories;
    return {
      id: r.id,
      key: r.key,
      rclass: r.rclass as RepositoryClass,
      packageType: r.packageType,
      members: Array.isArray(list) ? list.map(String) : [],
    };
  });
}

/** A repository that holds files of its own and is listed to users: not virtual, not of a hidden type. */
export function holdsListedFiles(repo: RepositoryHead): boolean {
  return (
    repo.rclass !== 'virtual' &&
    !(HIDDEN_REPOSITORY_TYPES as readonly string[]).includes(repo.packageType.toLowerCase())
  );
}

/** The caller may read at `path` of the repository ('' = its root). */
export function mayRead(
  authorizer: Authorizer,
  principal: Principal | null,
  repo: Pick<RepositoryHead, 'key' | 'rclass'>,
  path: string,
): Promise<boolean> {
  return authorizer.can(principal, 'read', { key: repo.key, rclass: repo.rclass, path });
}

/** Of `repos`, those that hold listed files (`holdsListedFiles`) the caller may read at their root, in order. */
export async function readableRepositories(
  authorizer: Authorizer,
  principal: Principal | null,
  repos: RepositoryHead[],
): Promise<RepositoryHead[]> {
  const out: RepositoryHead[] = [];
  for (const r of repos)
    if (holdsListedFiles(r) && (await mayRead(authorizer, principal, r, ''))) out.push(r);
  return out;
}
