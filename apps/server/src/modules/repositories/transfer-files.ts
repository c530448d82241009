import { ConflictError, ForbiddenError, NotFoundError } from '../../platform/errors.ts';
import type { Executor } from '../../platform/events/index.ts';
import type { Principal } from '../../platform/http/access-control.ts';
import { findArtifact } from './artifacts.queries.ts';
import { resolveTarget } from './artifacts.service.ts';
import { actorName, can, type RepositoriesContext } from './context.ts';
import {
  applyTransfers,
  checkTransferFile,
  checkTransferRepositories,
  type Refuse,
  type TransferStep,
} from './file-transfer.ts';
import { isInternalPath } from './internal-paths.ts';
export interface FileTransfer {
  from: { repoKey: string; path: string };
  to: { repoKey: string; path: string };
}

export interface TransferOutcome {
  /** `[from, to]` as `repo/path`, each file that was (or would be) copied or moved. */
  files: [string, string][];
  /** Files already at the target with the same content: nothing to copy (a move removes the source). */
  alreadyThere: string[];
}

/**
 * Copies or moves many files at once, all or nothing (issue 19: build promotion): every file is
 * checked first (read or delete permission on the source, write on the target, the target local and
 * of the source's package type, its include/exclude patterns), then one transaction stores them all,
 * sets `properties` on every target, and runs `inTransaction` (the caller's own rows and events), counted
 * against the quotas as a deploy is (issue 21: over one, nothing is promoted; `QUOTA_EXCEEDED`). A
 * target path holding different content is a conflict that stops everything; the same content there
 * is left as it is. A dry run checks and answers without changing anything.
 */
export async function transferFiles(
  ctx: RepositoriesContext,
  principal: Principal | null,
  mode: 'copy' | 'move',
  transfers: FileTransfer[],
  opts: {
    dryRun?: boolean;
    properties?: Record<string, string[]>;
    inTransaction?: (tx: Executor) => Promise<void>;
  } = {},
): Promise<TransferOutcome> {
  // Promotion names the permission missing (403), also on a repository the caller cannot see.
  const refuse: Refuse = async (action, repo, path) => {
    if (!(await can(ctx, principal, action, repo, path)))
      throw new ForbiddenError(`You do not have ${action} permission on ${repo.key}/${path}`);
  };
  const steps: TransferStep[] = [];
  const alreadyThere: string[] = [];
  for (const t of transfers) {
    const source = await resolveTarget(ctx, t.from.repoKey, principal);
    const dest = await resolveTarget(ctx, t.to.repoKey, principal);
    checkTransferRepositories(source, dest);
    const row = await findArtifact(ctx.db, source.repo.id, t.from.path);
    if (!row || isInternalPath(ctx, source.repo.packageType, t.from.path))
      throw new NotFoundError(`'${t.from.path}' not found in repository '${source.key}'`);
    if (dest.repo.id === source.repo.id && t.to.path === row.path) {
      await refuse(mode === 'copy' ? 'read' : 'delete', source.repo, row.path);
      alreadyThere.push(`${source.repo.key}/${row.path}`);
      continue;
    }
    const existing = await checkTransferFile(ctx, mode, refuse, source.repo, row, dest.repo, t.to.path);
    if (existing && existing.sha256 !== row.sha256)
      throw new ConflictError(
        `'${dest.repo.key}/${t.to.path}' already holds other content (sha256 ${existing.sha256}); nothing was promoted`,
      );
    if (existing) alreadyThere.push(`${dest.repo.key}/${t.to.path}`);
    steps.push({ source: source.repo, row, dest: dest.repo, target: t.to.path, existing, same: !!existing });
  }
  const files = steps
    .filter((s) => !s.same)
    .map((s): [string, string] => [`${s.source.key}/${s.row.path}`, `${s.dest.key}/${s.target}`]);
  if (opts.dryRun) return { files, alreadyThere };
  await applyTransfers(ctx, mode, steps, actorName(principal), {
    properties: opts.properties,
    inTransaction: opts.inTransaction,
  });
  return { files, alreadyThere };
}
