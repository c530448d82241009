import type { PackageMetadata } from '../../formats/sdk/format.ts';
import { ConflictError, ForbiddenError, InvalidError, NotFoundError } from '../../platform/errors.ts';
import { type Executor, publish } from '../../platform/events/index.ts';
import type { Principal } from '../../platform/http/access-control.ts';
import { transferEvent } from './artifact-events.ts';
import {
  type ArtifactRow,
  changeArtifacts,
  deleteArtifactsAt,
  findArtifact,
  setArtifactProperties,
  upsertArtifact,
} from './artifacts.queries.ts';
import { resolveTarget } from './artifacts.service.ts';
import { actorName, admitsPath, can, type RepositoriesContext } from './context.ts';
import { extractFor, notifyRemoved, notifyStored } from './indexing.ts';
import { isInternalPath } from './internal-paths.ts';
import type { RepoConfig } from './repositories.service.ts';

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
 * sets `properties` on every target, and runs `inTransaction` (the caller's own rows and events). A
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
  const plan: { source: RepoConfig; dest: RepoConfig; row: ArtifactRow; target: string; same: boolean }[] =
    [];
  const alreadyThere: string[] = [];
  for (const t of transfers) {
    const source = (await resolveTarget(ctx, t.from.repoKey, principal)).repo;
    const dest = await resolveTarget(ctx, t.to.repoKey, principal);
    if (source.rclass === 'virtual')
      throw new InvalidError('Copy and move work on local repositories and caches');
    if (dest.cache || dest.repo.rclass !== 'local')
      throw new InvalidError(`The target '${t.to.repoKey}' must be a local repository`);
    if (dest.repo.packageType !== source.packageType)
      throw new InvalidError(
        `The target repository '${dest.repo.key}' is ${dest.repo.packageType}, the source '${source.key}' ${source.packageType}`,
      );
    const row = await findArtifact(ctx.db, source.id, t.from.path);
    if (!row || isInternalPath(ctx, source.packageType, t.from.path))
      throw new NotFoundError(`'${t.from.path}' not found in repository '${source.key}'`);
    const action = mode === 'copy' ? 'read' : 'delete';
    if (!(await can(ctx, principal, action, source, row.path)))
      throw new ForbiddenError(`You do not have ${action} permission on ${source.key}/${row.path}`);
    if (dest.repo.id === source.id && t.to.path === row.path) {
      alreadyThere.push(`${source.key}/${row.path}`);
      continue;
    }
    if (!admitsPath(dest.repo, t.to.path, ctx.formats))
      throw new ForbiddenError(
        `'${t.to.path}' is not accepted by repository '${dest.repo.key}' (include/exclude patterns)`,
      );
    if (!(await can(ctx, principal, 'write', dest.repo, t.to.path)))
      throw new ForbiddenError(`You do not have write permission on ${dest.repo.key}/${t.to.path}`);
    const existing = await findArtifact(ctx.db, dest.repo.id, t.to.path);
    if (existing && existing.sha256 !== row.sha256)
      throw new ConflictError(
        `'${dest.repo.key}/${t.to.path}' already holds other content (sha256 ${existing.sha256}); nothing was promoted`,
      );
    if (existing) alreadyThere.push(`${dest.repo.key}/${t.to.path}`);
    plan.push({ source, dest: dest.repo, row, target: t.to.path, same: !!existing });
  }
  const files = plan
    .filter((p) => !p.same)
    .map((p): [string, string] => [`${p.source.key}/${p.row.path}`, `${p.dest.key}/${p.target}`]);
  if (opts.dryRun) return { files, alreadyThere };
  const by = actorName(principal);
  const metas = new Map<string, PackageMetadata | null>();
  for (const p of plan)
    if (!p.same) metas.set(`${p.dest.id}/${p.target}`, await extractFor(ctx, p.dest, p.target, p.row));
  await changeArtifacts(ctx.db, async (tx) => {
    for (const p of plan) {
      const props = { ...((p.row.properties ?? {}) as Record<string, string[]>), ...(opts.properties ?? {}) };
      if (p.same) {
        const there = await findArtifact(tx, p.dest.id, p.target);
        if (there && opts.properties)
          await setArtifactProperties(
            tx,
            there.id,
            { ...((there.properties ?? {}) as Record<string, string[]>), ...opts.properties },
            by,
          );
      } else {
        await notifyRemoved(ctx, tx, p.dest.id, [p.target]);
        await notifyStored(ctx, tx, p.dest, p.target, p.row, metas.get(`${p.dest.id}/${p.target}`) ?? null);
        await upsertArtifact(tx, {
          repositoryId: p.dest.id,
          path: p.target,
          size: p.row.size,
          sha256: p.row.sha256,
          sha1: p.row.sha1,
          md5: p.row.md5,
          mimeType: p.row.mimeType,
          properties: props,
          createdBy: by,
          modifiedBy: by,
        });
      }
      if (mode === 'move') {
        await notifyRemoved(ctx, tx, p.source.id, [p.row.path]);
        await deleteArtifactsAt(tx, p.source.id, p.row.path);
      }
    }
    await publish(
      tx,
      ...plan
        .filter((p) => !p.same)
        .map((p) =>
          transferEvent(
            mode,
            { repoKey: p.source.key, path: p.row.path },
            { repoKey: p.dest.key, path: p.target, sha256: p.row.sha256, size: p.row.size },
            by,
          ),
        ),
    );
    await opts.inTransaction?.(tx);
  });
  const changes = new Map<string, { repo: RepoConfig; deleted: string[]; added: string[] }>();
  const note = (repo: RepoConfig, path: string, kind: 'deleted' | 'added') => {
    const change = changes.get(repo.id) ?? { repo, deleted: [], added: [] };
    changes.set(repo.id, change);
    change[kind].push(path);
  };
  for (const p of plan) {
    if (mode === 'move') note(p.source, p.row.path, 'deleted');
    if (!p.same) note(p.dest, p.target, 'added');
  }
  for (const { repo, deleted, added } of changes.values())
    await ctx.afterFormatChange(repo, { deleted, added });
  return { files, alreadyThere };
}
