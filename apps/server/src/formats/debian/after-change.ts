import type { PathsChange, RepositoryHandle } from '../sdk/format.ts';
import { rebuildLocal } from './local.ts';

/**
 * A .deb removed, copied or moved other than by an upload (the console's tree, `/api/move`, a
 * DELETE): the indexes are derived again, so apt is never offered a package that is gone. A copied
 * .deb keeps its `deb.*` properties and is indexed where it lands.
 */
export async function debianAfterChange(repo: RepositoryHandle, change: PathsChange): Promise<void> {
  if (repo.repository.rclass !== 'local') return;
  const paths = [...(change.deleted ?? []), ...(change.added ?? [])];
  // A folder removed may have held .debs; a file that is not a .deb changes no index.
  if (paths.some((p) => p.endsWith('.deb') || !/\.[A-Za-z0-9]+$/.test(p.split('/').at(-1) ?? '')))
    await rebuildLocal(repo);
}
