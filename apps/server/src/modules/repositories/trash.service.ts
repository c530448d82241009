import type { TrashItem, TrashSearchAnswer, TrashSearchQuery, TrashUsage } from '@granary/contracts';
import type { PackageMetadata } from '../../formats/sdk/format.ts';
import { registerBlobHolder } from '../../platform/blobs/index.ts';
import type { Db } from '../../platform/db/index.ts';
import { ConflictError, InvalidError, NotFoundError } from '../../platform/errors.ts';
import type { Executor } from '../../platform/events/index.ts';
import type { Principal } from '../../platform/http/access-control.ts';
import type { Platform } from '../../platform/platform.ts';
import {
  type ArtifactRow,
  changeArtifacts,
  findArtifact,
  pathConflicts,
  upsertArtifact,
} from './artifacts.queries.ts';
import {
  actorName,
  admitsPath,
  authorize,
  can,
  type RepositoriesContext,
  repositoryHidden,
} from './context.ts';
import { extractFor, notifyStored } from './indexing.ts';
import { isInternalPath, reservedPath } from './internal-paths.ts';
import { RepoPath } from './repo-path.ts';
import { findRepository, type RepoConfig } from './repositories.service.ts';
import {
  deleteExpiredTrash,
  deleteTrashItems,
  findTrashItems,
  insertTrashItems,
  listTrashPage,
  searchTrash,
  type TrashRow,
  trashLike,
  trashUsageRows,
} from './trash.queries.ts';

export const TRASH_EXPIRE_JOB = 'trash.expire';
const DAY_MS = 24 * 3600 * 1000;

/** Whether deletes from this repository go to its trash, and for how many days (issue 21). */
export function trashPolicy(ctx: RepositoriesContext, repo: RepoConfig): { enabled: boolean; days: number } {
  // Only a local repository's own files: a remote's cache is the upstream's copy, fetched again at will.
  if (repo.rclass !== 'local') return { enabled: false, days: 0 };
  return {
    enabled: repo.trash?.enabled ?? true,
    days: repo.trash?.retentionDays ?? ctx.trash.defaultRetentionDays,
  };
}

/**
 * Inside the deleting transaction (`deleteArtifacts`): the deleted rows `rows` of `repo` become trash
 * entries when the repository keeps a trash; answers whether they did. The caller passes only what a
 * user deleted (what is announced as `artifact.deleted`): a format's own records and derived files are
 * rebuilt from the restored files, never trashed.
 */
export async function moveToTrash(
  ctx: RepositoriesContext,
  tx: Executor,
  repo: RepoConfig,
  rows: ArtifactRow[],
  principal: Principal | null,
): Promise<boolean> {
  const policy = trashPolicy(ctx, repo);
  if (!policy.enabled || rows.length === 0) return false;
  const at = new Date(ctx.trash.now());
  await insertTrashItems(tx, rows, {
    by: actorName(principal),
    at,
    expiresAt: new Date(at.getTime() + policy.days * DAY_MS),
  });
  return true;
}

async function originalRepository(
  ctx: RepositoriesContext,
  principal: Principal | null,
  key: string,
): Promise<RepoConfig> {
  const repo = await findRepository(ctx.db, key);
  if (repo?.rclass !== 'local') throw repositoryHidden(principal, key);
  return repo;
}

async function entriesAt(
  ctx: RepositoriesContext,
  principal: Principal | null,
  path: RepoPath,
  action: 'read' | 'delete',
): Promise<{ repo: RepoConfig; items: TrashRow[] }> {
  const repo = await originalRepository(ctx, principal, path.repoKey);
  await authorize(ctx, principal, action, repo, path.path);
  const items = await findTrashItems(ctx.db, repo.id, path.path);
  if (items.length === 0)
    throw new NotFoundError(`'${path.path || '/'}' is not in the trash of repository '${repo.key}'`);
  return { repo, items };
}

export interface RestoreResult {
  repo: RepoConfig;
  /** `[from, to]` paths restored. */
  files: [string, string][];
}

/**
 * Restore (spec 001 §3): puts a trashed file, or every trashed file below a folder, back at its path — or
 * below `to` — with its bytes, properties and creation record, in one transaction; the repository's format
 * then regenerates what it derives (npm packument, PyPI simple page, Maven metadata), as after a deploy.
 * Refused with 409 when another file (other bytes) or a folder is at a target path now; nothing changes
 * then. Needs read on the trashed path and deploy (write) on every target path.
 */
export async function restoreFromTrash(
  ctx: RepositoriesContext,
  principal: Principal | null,
  from: RepoPath,
  to?: RepoPath,
): Promise<RestoreResult> {
  const { repo: source, items } = await entriesAt(ctx, principal, from, 'read');
  const target = to ? await findRepository(ctx.db, to.repoKey) : source;
  if (!target) throw repositoryHidden(principal, to!.repoKey);
  if (target.rclass !== 'local') throw new InvalidError('A file is restored into a local repository');
  if (target.packageType !== source.packageType)
    throw new InvalidError(
      `The target repository is ${target.packageType}, the trashed file ${source.packageType}`,
    );
  const single = items.length === 1 && items[0]!.path === from.path;
  const targetPathOf = (item: TrashRow) => {
    if (!to) return item.path;
    if (single) return to.path;
    const rest = item.path.slice(from.path === '' ? 0 : from.path.length + 1);
    return [to.path, rest].filter(Boolean).join('/');
  };
  const plan: { item: TrashRow; path: string; same: boolean }[] = [];
  for (const item of items) {
    const path = targetPathOf(item);
    if (!path) throw new InvalidError('The target must name a path');
    if (isInternalPath(ctx, target.packageType, path)) throw reservedPath(target.packageType, path);
    await authorize(ctx, principal, 'write', target, path);
    if (!admitsPath(target, path, ctx.formats))
      throw new InvalidError(
        `'${path}' is not accepted by repository '${target.key}' (include/exclude patterns)`,
      );
    const now = await findArtifact(ctx.db, target.id, path);
    if (now && now.sha256 !== item.sha256)
      throw new ConflictError(
        `Cannot restore '${source.key}/${item.path}': another file is at '${target.key}/${path}' now. Delete or move it first, or restore to another path.`,
        'ALREADY_EXISTS',
      );
    if (!(await ctx.blobs.stat(item.sha256)))
      throw new NotFoundError(
        `The stored bytes of '${source.key}/${item.path}' are gone: it cannot be restored`,
      );
    plan.push({ item, path, same: !!now });
  }
  const fresh = plan.filter((p) => !p.same).map((p) => p.path);
  const conflicts = fresh.length > 0 ? await pathConflicts(ctx.db, target.id, fresh) : new Map();
  for (const path of fresh) {
    const c = conflicts.get(path);
    if (c?.folder)
      throw new ConflictError(
        `Cannot restore to '${target.key}/${path}': it is a folder now`,
        'ALREADY_EXISTS',
      );
    if (c?.fileAbove)
      throw new ConflictError(
        `Cannot restore to '${target.key}/${path}': '${c.fileAbove}' is a file now`,
        'ALREADY_EXISTS',
      );
  }
  const metas = new Map<string, PackageMetadata | null>();
  for (const { item, path, same } of plan)
    if (!same) metas.set(path, await extractFor(ctx, target, path, item));
  await changeArtifacts(ctx.db, async (tx) => {
    for (const { item, path, same } of plan) {
      if (same) continue;
      // Gone meanwhile (another restore, a clean): nothing of this restore happens.
      if (await findArtifact(tx, target.id, path))
        throw new ConflictError(
          `Cannot restore '${source.key}/${item.path}': another file is at '${target.key}/${path}' now`,
          'ALREADY_EXISTS',
        );
      await notifyStored(ctx, tx, target, path, item, metas.get(path) ?? null);
      await upsertArtifact(tx, {
        repositoryId: target.id,
        path,
        size: item.size,
        sha256: item.sha256,
        sha1: item.sha1,
        md5: item.md5,
        mimeType: item.mimeType,
        properties: item.properties,
        createdAt: item.createdAt,
        createdBy: item.createdBy,
        modifiedBy: actorName(principal),
      });
    }
    const removed = await deleteTrashItems(
      tx,
      plan.map((p) => p.item.id),
    );
    if (removed !== plan.length)
      throw new ConflictError('The trash changed while restoring (restored or deleted meanwhile): try again');
  });
  const added = plan.filter((p) => !p.same).map((p) => p.path);
  if (added.length > 0) await ctx.afterFormatChange(target, { added, deleted: [] });
  return { repo: target, files: plan.map((p): [string, string] => [p.item.path, p.path]) };
}

/** Delete Permanently (spec 001 §3): a trashed file or folder goes for good; needs delete permission on it. */
export async function cleanTrash(
  ctx: RepositoriesContext,
  principal: Principal | null,
  path: RepoPath,
): Promise<number> {
  const { items } = await entriesAt(ctx, principal, path, 'delete');
  return deleteTrashItems(
    ctx.db,
    items.map((i) => i.id),
  );
}

/** Empty Trash Can (spec 001 §3, admins: the route says so): every entry of every repository goes. */
export async function emptyTrash(db: Db): Promise<number> {
  let count = 0;
  let after = 0;
  for (;;) {
    const page = await listTrashPage(db, after, 1000);
    if (page.length === 0) return count;
    count += await deleteTrashItems(
      db,
      page.map((p) => p.id),
    );
    after = page.at(-1)!.id;
  }
}

/**
 * Search Trash Can (spec 001 §3): entries whose path contains `q` (wildcards `*` `?`), in the repositories
 * named, newest deletion first; only entries the caller may read, each with what the caller may do.
 */
export async function searchTrashFor(
  ctx: RepositoriesContext,
  principal: Principal | null,
  query: TrashSearchQuery,
): Promise<TrashSearchAnswer> {
  const limit = query.limit ?? 200;
  let repositoryIds: string[] | null = null;
  if (query.repos) {
    repositoryIds = [];
    for (const key of query.repos
      .split(',')
      .map((k) => k.trim())
      .filter(Boolean)) {
      const repo = await findRepository(ctx.db, key);
      if (repo) repositoryIds.push(repo.id);
    }
  }
  const like = query.q?.trim() ? trashLike(query.q.trim()) : null;
  const results: TrashItem[] = [];
  let truncated = false;
  // Read a little more than asked: entries the caller may not read drop out.
  const hits = await searchTrash(
    ctx.db,
    { like, repositoryIds },
    principal?.admin ? limit + 1 : limit * 4 + 1,
  );
  const repos = new Map<string, RepoConfig | undefined>();
  for (const hit of hits) {
    if (!repos.has(hit.repo_key)) repos.set(hit.repo_key, await findRepository(ctx.db, hit.repo_key));
    const repo = repos.get(hit.repo_key);
    if (!repo || !(await can(ctx, principal, 'read', repo, hit.path))) continue;
    if (results.length === limit) {
      truncated = true;
      break;
    }
    results.push({
      repoKey: hit.repo_key,
      path: hit.path,
      name: hit.path.split('/').at(-1) ?? hit.path,
      size: Number(hit.size),
      sha256: hit.sha256,
      deletedBy: hit.deleted_by,
      deletedAt: new Date(hit.deleted_at).toISOString(),
      expiresAt: new Date(hit.expires_at).toISOString(),
      packageType: hit.package_type,
      canRestore: await can(ctx, principal, 'write', repo, hit.path),
      canDelete: await can(ctx, principal, 'delete', repo, hit.path),
    });
  }
  return { results, truncated, canEmpty: !!principal?.admin };
}

/** Files and bytes in each repository's trash (the storage summary's trash size, issue 21). */
export function trashUsage(db: Db): Promise<TrashUsage[]> {
  return trashUsageRows(db);
}

/** The job `trash.expire` (hourly, one node at a time): entries past their expiry go; their blobs to the GC. */
export function registerTrashExpiry(platform: Platform): void {
  const db = platform.database.db;
  // Trash entries hold their blobs (trigger `trash_items_blob_ref`, migration 0031): the consistency check counts them.
  registerBlobHolder('trash_items');
  platform.jobs.recurring({
    name: TRASH_EXPIRE_JOB,
    scope: 'cluster',
    intervalMs: 3600_000,
    jitterMs: 60_000,
    run: async ({ signal }) => {
      let expired = 0;
      while (!signal.aborted) {
        const n = await deleteExpiredTrash(db, new Date(platform.now()), 1000);
        expired += n;
        if (n < 1000) break;
      }
      return { expired };
    },
  });
}

/** `repoKey/path` (a `to` query, leading slash allowed) as a RepoPath. */
export function parseRepoPathParam(value: string): RepoPath {
  const to = value.replace(/^\/+/, '');
  const slash = to.indexOf('/');
  if (!to) throw new InvalidError('to: name a repository and a path');
  return RepoPath.parse(slash < 0 ? to : to.slice(0, slash), slash < 0 ? '' : to.slice(slash + 1));
}
