import { ErrorCode } from '@granary/contracts';
import { eq } from 'drizzle-orm';
import { TooLargeError } from '../../platform/errors.ts';
import type { Executor } from '../../platform/events/index.ts';
import { projects } from '../access/access.schema.ts';
import type { RepositoriesContext } from './context.ts';
import {
  findRepositoryQuota,
  lockQuotaScope,
  projectUsedBytes,
  repositoryUsedBytes,
} from './quota.queries.ts';
import type { RepoConfig } from './repositories.service.ts';

/** Warned at this share of a quota (issue 21: warn at 80 %, refuse at 100 %). */
export const QUOTA_WARN_RATIO = 0.8;

/**
 * An upload that would take a repository or project over its storage quota. 413 on the REST API and
 * to npm, pip/twine and Maven (each in its own error shape, with the message); the OCI registry
 * answers 403 `DENIED`, as registries with quotas do.
 */
export class QuotaExceededError extends TooLargeError {
  constructor(message: string) {
    super(message, ErrorCode.QuotaExceeded);
  }
}

export type QuotaState = 'ok' | 'warning' | 'exceeded';

export function quotaState(used: number, quota: number | null): QuotaState {
  if (quota === null) return 'ok';
  if (used >= quota) return 'exceeded';
  return used >= quota * QUOTA_WARN_RATIO ? 'warning' : 'ok';
}

/** A quota the change took past 80 %: logged once the change has committed. */
export interface QuotaWarning {
  scope: 'repository' | 'project';
  name: string;
  usedBytes: number;
  quotaBytes: number;
}

/** "1.5 MiB": bytes for a message. */
export function formatBytes(bytes: number): string {
  const units = ['bytes', 'KiB', 'MiB', 'GiB', 'TiB'];
  let v = bytes;
  let i = 0;
  while (v >= 1024 && i < units.length - 1) {
    v /= 1024;
    i += 1;
  }
  return i === 0 ? `${bytes} bytes` : `${v.toFixed(v < 10 ? 1 : 0)} ${units[i]}`;
}

async function projectQuota(tx: Executor, key: string): Promise<number | null> {
  const rows = await tx
    .select({ quota: projects.storageQuotaBytes })
    .from(projects)
    .where(eq(projects.key, key))
    .limit(1);
  const q = rows[0]?.quota ?? null;
  return q !== null && q >= 0 ? q : null;
}

/**
 * In the transaction that stores `added` more bytes in `repo`: refuses the change (QuotaExceededError)
 * when the repository's or its project's artifacts would then take more than the quota, counted from
 * the database exactly (the sum of artifact sizes, under a lock on the scope, so concurrent uploads
 * cannot both slip under it). Costs one indexed lookup when no quota is set. Answers the quotas the
 * change took past 80 %.
 */
export function enforceQuota(tx: Executor, repo: RepoConfig, added: number): Promise<QuotaWarning[]> {
  return enforceQuotaChanges(tx, [{ repo, bytes: added }]);
}

/**
 * `enforceQuota` for a change of several repositories at once (issue 21: a copy or move, a promotion):
 * `bytes` each repository gains (negative: loses), checked before the change is written. A scope — a
 * repository or a project — that gains bytes in all is refused when it would pass its quota; a move
 * between two repositories of one project changes the project's use by nothing.
 */
export async function enforceQuotaChanges(
  tx: Executor,
  changes: { repo: RepoConfig; bytes: number }[],
  what = 'upload',
): Promise<QuotaWarning[]> {
  const repos = new Map<string, { repo: RepoConfig; bytes: number }>();
  const projectBytes = new Map<string, number>();
  for (const { repo, bytes } of changes) {
    const r = repos.get(repo.id) ?? { repo, bytes: 0 };
    r.bytes += bytes;
    repos.set(repo.id, r);
    if (repo.projectKey) projectBytes.set(repo.projectKey, (projectBytes.get(repo.projectKey) ?? 0) + bytes);
  }
  const scopes: {
    scope: QuotaWarning['scope'];
    name: string;
    added: number;
    quota: number;
    used: () => Promise<number>;
  }[] = [];
  // Every change takes the locks in one order (projects, then repositories, each by name): no deadlock.
  for (const [key, added] of [...projectBytes].sort(([a], [b]) => (a < b ? -1 : a > b ? 1 : 0))) {
    if (added <= 0) continue;
    const quota = await projectQuota(tx, key);
    if (quota !== null)
      scopes.push({ scope: 'project', name: key, added, quota, used: () => projectUsedBytes(tx, key) });
  }
  for (const { repo, bytes } of [...repos.values()].sort((a, b) =>
    a.repo.key < b.repo.key ? -1 : a.repo.key > b.repo.key ? 1 : 0,
  )) {
    if (bytes <= 0) continue;
    const own = await findRepositoryQuota(tx, repo.id);
    if (own !== null)
      scopes.push({
        scope: 'repository',
        name: repo.key,
        added: bytes,
        quota: own,
        used: () => repositoryUsedBytes(tx, repo.id),
      });
  }
  const warnings: QuotaWarning[] = [];
  for (const s of scopes) {
    await lockQuotaScope(tx, `${s.scope}:${s.name}`);
    const used = await s.used();
    if (used + s.added > s.quota)
      throw new QuotaExceededError(
        `Storage quota exceeded: ${s.scope} '${s.name}' may hold ${formatBytes(s.quota)} and holds ${formatBytes(used)}; this ${what} of ${formatBytes(s.added)} was refused and nothing was stored`,
      );
    const limit = s.quota * QUOTA_WARN_RATIO;
    if (used < limit && used + s.added >= limit)
      warnings.push({ scope: s.scope, name: s.name, usedBytes: used + s.added, quotaBytes: s.quota });
  }
  return warnings;
}

/** After the commit: one warning line per quota the change took past 80 %. */
export function logQuotaWarnings(ctx: Pick<RepositoriesContext, 'log'>, warnings: QuotaWarning[]): void {
  for (const w of warnings)
    ctx.log.warn(
      { quota: w },
      `Storage quota warning: ${w.scope} '${w.name}' holds ${formatBytes(w.usedBytes)} of its ${formatBytes(w.quotaBytes)} quota (${Math.floor((w.usedBytes / w.quotaBytes) * 100)} %)`,
    );
}
