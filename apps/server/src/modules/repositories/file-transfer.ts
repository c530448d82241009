import type { PermissionAction } from '@granary/contracts';
import type { PackageMetadata } from '../../formats/sdk/format.ts';
import { ForbiddenError, InvalidError } from '../../platform/errors.ts';
import { type Executor, publish } from '../../platform/events/index.ts';
import { transferEvent } from './artifact-events.ts';
import {
  type ArtifactRow,
  changeArtifacts,
  deleteArtifactsAt,
  findArtifact,
  setArtifactProperties,
  upsertArtifact,
} from './artifacts.queries.ts';
import { admitsPath, type RepositoriesContext } from './context.ts';
import { extractFor, notifyRemoved, notifyStored } from './indexing.ts';
import { isInternalPath, reservedPath } from './internal-paths.ts';
import { enforceQuotaChanges, logQuotaWarnings } from './quota.service.ts';
import type { RepoConfig } from './repositories.service.ts';

/**
 * Copy and move of stored files, shared by the storage API's copy/move (`copyOrMove`) and build
 * promotion (`transferFiles`): the same checks, and one transaction that writes them, counted against
 * the quotas of the repositories and projects that gain bytes (issue 21) as a deploy is.
 */

/** The repositories a copy or move goes between: from a local repository or cache to a local one of the same type. */
export function checkTransferRepositories(
  source: { repo: RepoConfig; key: string },
  dest: { repo: RepoConfig; key: string; cache: boolean },
): void {
  if (source.repo.rclass === 'virtual')
    throw new InvalidError('Copy and move work on local repositories and caches');
  if (dest.cache || dest.repo.rclass !== 'local')
    throw new InvalidError(`The target '${dest.key}' must be a local repository`);
  if (dest.repo.packageType !== source.repo.packageType)
    throw new InvalidError(
      `The target repository '${dest.repo.key}' is ${dest.repo.packageType}, the source '${source.key}' ${source.repo.packageType}`,
    );
}

/** How a caller refuses an action: the storage API hides what the caller cannot see, promotion names the permission. */
export type Refuse = (action: PermissionAction, repo: RepoConfig, path: string) => Promise<void>;

/**
 * The checks of one file: read (copy) or delete (move) on the source, the target path neither a
 * format's own nor refused by the target's include/exclude patterns, write on it. Answers what is at
 * the target now.
 */
export async function checkTransferFile(
  ctx: RepositoriesContext,
  mode: 'copy' | 'move',
  refuse: Refuse,
  source: RepoConfig,
  row: ArtifactRow,
  dest: RepoConfig,
  target: string,
): Promise<ArtifactRow | undefined> {
  if (!target) throw new InvalidError('The target must name a path');
  if (isInternalPath(ctx, dest.packageType, target)) throw reservedPath(dest.packageType, target);
  await refuse(mode === 'copy' ? 'read' : 'delete', source, row.path);
  if (!admitsPath(dest, target, ctx.formats))
    throw new ForbiddenError(
      `'${target}' is not accepted by repository '${dest.key}' (include/exclude patterns)`,
    );
  await refuse('write', dest, target);
  return findArtifact(ctx.db, dest.id, target);
}

/** One file to copy or move. */
export interface TransferStep {
  source: RepoConfig;
  row: ArtifactRow;
  dest: RepoConfig;
  target: string;
  /** the file at the target now (replaced unless `same`) */
  existing: ArtifactRow | undefined;
  /** the target holds this content already: nothing is written there (a move removes the source) */
  same: boolean;
}

/**
 * Writes checked steps in one transaction: the quotas first (a repository or project the change takes
 * over its quota refuses it all with QUOTA_EXCEEDED, nothing written), then each target stored (its
 * properties merged with `properties`), each moved source removed, one `artifact.copied`/`moved` event
 * per file written, and the caller's `inTransaction`; afterwards the formats regenerate what they derive.
 */
export async function applyTransfers(
  ctx: RepositoriesContext,
  mode: 'copy' | 'move',
  steps: TransferStep[],
  by: string,
  opts: { properties?: Record<string, string[]>; inTransaction?: (tx: Executor) => Promise<void> } = {},
): Promise<void> {
  const metas = new Map<string, PackageMetadata | null>();
  for (const s of steps)
    if (!s.same) metas.set(`${s.dest.id}/${s.target}`, await extractFor(ctx, s.dest, s.target, s.row));
  const changes: { repo: RepoConfig; bytes: number }[] = [];
  for (const s of steps) {
    if (!s.same) changes.push({ repo: s.dest, bytes: s.row.size - (s.existing?.size ?? 0) });
    if (mode === 'move') changes.push({ repo: s.source, bytes: -s.row.size });
  }
  const warnings = await changeArtifacts(ctx.db, async (tx) => {
    const warned = await enforceQuotaChanges(tx, changes, mode);
    for (const s of steps) {
      if (s.same) {
        const there = await findArtifact(tx, s.dest.id, s.target);
        if (there && opts.properties)
          await setArtifactProperties(
            tx,
            there.id,
            { ...((there.properties ?? {}) as Record<string, string[]>), ...opts.properties },
            by,
          );
      } else {
        await notifyRemoved(ctx, tx, s.dest.id, [s.target]);
        await notifyStored(ctx, tx, s.dest, s.target, s.row, metas.get(`${s.dest.id}/${s.target}`) ?? null);
        await upsertArtifact(tx, {
          repositoryId: s.dest.id,
          path: s.target,
          size: s.row.size,
          sha256: s.row.sha256,
          sha1: s.row.sha1,
          md5: s.row.md5,
          mimeType: s.row.mimeType,
          properties: {
            ...((s.row.properties ?? {}) as Record<string, string[]>),
            ...(opts.properties ?? {}),
          },
          createdBy: by,
          modifiedBy: by,
        });
      }
      if (mode === 'move') {
        await notifyRemoved(ctx, tx, s.source.id, [s.row.path]);
        await deleteArtifactsAt(tx, s.source.id, s.row.path);
      }
    }
    await publish(
      tx,
      ...steps
        .filter((s) => !s.same)
        .map((s) =>
          transferEvent(
            mode,
            { repoKey: s.source.key, path: s.row.path },
            { repoKey: s.dest.key, path: s.target, sha256: s.row.sha256, size: s.row.size },
            by,
          ),
        ),
    );
    await opts.inTransaction?.(tx);
    return warned;
  });
  logQuotaWarnings(ctx, warnings);
  // The formats regenerate what they derive, per repository: a move's sources deleted, the targets added.
  const byRepo = new Map<string, { repo: RepoConfig; deleted: string[]; added: string[] }>();
  const note = (repo: RepoConfig, path: string, kind: 'deleted' | 'added') => {
    const change = byRepo.get(repo.id) ?? { repo, deleted: [], added: [] };
    byRepo.set(repo.id, change);
    change[kind].push(path);
  };
  for (const s of steps) {
    if (mode === 'move') note(s.source, s.row.path, 'deleted');
    if (!s.same) note(s.dest, s.target, 'added');
  }
  for (const { repo, deleted, added } of byRepo.values())
    await ctx.afterFormatChange(repo, { deleted, added });
}
