import type { HIDDEN_REPOSITORY_TYPES } from '@granary/contracts';
import type { Db } from '../../platform/db/index.ts';
import { findRepositoryByKey, insertRepository, withAdvisoryLock } from './repositories.queries.ts';
import { findRepository, forgetConfigs, type RepoConfig } from './repositories.service.ts';

const SYSTEM_REPOSITORY_LOCK = 0x67726e73797372n; // 'grnsysr'

/**
 * A repository the server keeps for itself, of a hidden type (spec 000 §9: `buildinfo`, …): created
 * on first use (so a fresh install lists only what users made), never listed by any repository list,
 * search or tree, since its type is hidden. Not through `createRepository`: a hidden type is no
 * package format users may pick. Safe when several nodes ask at once (an advisory lock).
 */
export async function ensureSystemRepository(
  db: Db,
  key: string,
  packageType: (typeof HIDDEN_REPOSITORY_TYPES)[number],
  description: string,
): Promise<RepoConfig> {
  const known = await findRepository(db, key);
  if (known) return known;
  await withAdvisoryLock(db, SYSTEM_REPOSITORY_LOCK, async (tx) => {
    if (await findRepositoryByKey(tx, key)) return;
    await insertRepository(tx, { key, rclass: 'local', packageType, description });
  });
  forgetConfigs(db);
  const repo = await findRepository(db, key);
  if (!repo) throw new Error(`system repository '${key}' was not created`);
  return repo;
}
