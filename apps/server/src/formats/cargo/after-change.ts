import type { PathsChange, RepositoryHandle } from '../sdk/format.ts';
import { localEntries, writeLocalIndex } from './index-file.ts';
import { crateFileOf, crateOfIndexPath, INDEX_ROOT, parseCratePath } from './names.ts';

/**
 * A .crate removed other than by cargo (the console's tree, `/api/move`, a DELETE): the index no
 * longer offers that version, so cargo never resolves a version it cannot download.
 */
export async function cargoAfterChange(repo: RepositoryHandle, change: PathsChange): Promise<void> {
  if (repo.repository.rclass !== 'local' || !change.deleted?.length) return;
  const names = new Set<string>();
  let folders = false;
  for (const p of change.deleted) {
    const at = parseCratePath(p);
    if (at) names.add(at.name);
    else if (!p.endsWith('.crate') && ('crates/'.startsWith(`${p}/`) || p === '' || p.startsWith('crates')))
      folders = true;
  }
  if (folders)
    for (const f of await repo.listFiles(INDEX_ROOT)) {
      const name = crateOfIndexPath(f.path.slice(INDEX_ROOT.length + 1));
      if (name) names.add(name);
    }
  for (const name of names)
    await repo.withLock(`crate:${name.toLowerCase()}`, async () => {
      const entries = await localEntries(repo, name);
      const kept = [];
      for (const e of entries) if (await repo.stat(crateFileOf(e.name, e.vers))) kept.push(e);
      if (kept.length !== entries.length) await writeLocalIndex(repo, name, kept);
    });
}
