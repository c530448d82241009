import type { TrashItem, TrashSearchAnswer, TrashSearchQuery, TrashUsage } from '@granary/contracts';
import { registerBlobHolder } from '../../platform/blobs/index.ts';
import type { Db } from '../../platform/db/index.ts';
import { ConflictError, InvalidError, NotFoundError } from '../../platform/errors.ts';
import { type Executor, publish } from '../../platform/events/index.ts';
import type { Principal } from '../../platform/http/access-control.ts';
import type { Platform } from '../../platform/platform.ts';
import { artifactEvent } from './artifact-events.ts';
import type { ArtifactRow } from './artifacts.queries.ts';
import { actorName, authorize, can, type RepositoriesContext, repositoryHidden } from './context.ts';
import { isInternalPath, reservedPath } from './internal-paths.ts';
import { type PutBackFile, parkArtifacts, putBack } from './parked-artifacts.ts';
import { RepoPath } from './repo-path.ts';
import { findRepository, type RepoConfig } from './repositories.service.ts';
import {
  deleteExpiredTrash,
  deleteTrashItems,
  findTrashItems,
  listTrashPage,
  searchTrash,
  type TrashRow,
  trashLike,
  trashUsageRows,
} from './trash.queries.ts';
import { trashItems } from './trash.schema.ts';

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
  const expiresAt = new Date(at.getTime() + policy.days * DAY_MS);
  const by = actorName(principal);
  await parkArtifacts(tx, trashItems, rows, (r) => ({
    modifiedAt: r.modifiedAt,
    modifiedBy: r.modifiedBy,
    deletedAt: at,
    deletedBy: by,
    expiresAt,
  }));
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
 * below `to` — through the parking mechanism shared with the archive (`putBack`): bytes, properties and
 * creation record kept, one transaction, the format's documents regenerated (npm packument, PyPI simple
 * page, Maven metadata). Refused with 409 when another file (other bytes) or a folder is at a target path
 * now; nothing changes then. Needs read on the trashed path and deploy (write) on every target path.
 *
 * Its event: `artifact.deployed` for each file written back (by the restorer). Artifactory's trash can
 * is a repository and a restore moves the file out of it, but a webhook subscriber cannot resolve a
 * source in the trash, and Artifactory's `artifact_lifecycle` events are its cold storage's (the
 * archive's, which sends `artifact_lifecycle.restored`); for a subscriber a restored file is content
 * stored at a path again, as a re-deploy is — so `deployed`, as the deleted file's `deleted` was.
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
  const ids = new Map<PutBackFile, number>();
  const files: PutBackFile[] = [];
  for (const item of items) {
    const path = targetPathOf(item);
    if (!path) throw new InvalidError('The target must name a path');
    if (isInternalPath(ctx, target.packageType, path)) throw reservedPath(target.packageType, path);
    await authorize(ctx, principal, 'write', target, path);
    const file: PutBackFile = { file: item, path, label: `${source.key}/${item.path}` };
    ids.set(file, item.id);
    files.push(file);
  }
  const by = actorName(principal);
  await putBack(ctx, target, files, {
    by,
    release: async (tx, { restored }) => {
      const removed = await deleteTrashItems(tx, [...ids.values()]);
      if (removed !== ids.size)
        throw new ConflictError(
          'The trash changed while restoring (restored or deleted meanwhile): try again',
        );
      await publish(
        tx,
        ...restored.map((f) =>
          artifactEvent(
            'deployed',
            { repoKey: target.key, path: f.path, sha256: f.file.sha256, size: f.file.size },
            { by },
          ),
        ),
      );
    },
  });
  return { repo: target, files: files.map((f): [string, string] => [f.file.path, f.path]) };
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
