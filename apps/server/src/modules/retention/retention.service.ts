import { Readable } from 'node:stream';
import { buffer } from 'node:stream/consumers';
import {
  type ArchivedArtifact,
  type ArchiveRestoreAnswer,
  type ArchiveSearchAnswer,
  EXPIRED_ARTIFACT_MESSAGE,
  type RetentionDryRun,
  type RetentionPolicy,
  type RetentionPolicyInput,
  type RetentionRunResult,
  retentionPolicyInputSchema,
  retentionRulesSchema,
} from '@granary/contracts';
import type { Logger } from 'pino';
import type { BlobStore } from '../../platform/blobs/index.ts';
import type { Db } from '../../platform/db/index.ts';
import { ConflictError, InvalidError, NotFoundError } from '../../platform/errors.ts';
import { type DomainEvent, publish } from '../../platform/events/index.ts';
import type { Principal } from '../../platform/http/access-control.ts';
import {
  createSystemHandle,
  deleteArtifacts,
  findRepository,
  listRepositories,
  parkArtifacts,
  putBack,
  type RepoConfig,
  RepoPath,
  type RepositoriesContext,
  takeOutArtifacts,
} from '../repositories/repositories.api.ts';
import { evaluateRepository, type Unit } from './evaluate.ts';
import {
  type ArchivedRow,
  archivedHolds,
  archiveUsageRows,
  claimDuePolicies,
  deleteArchived,
  deletePolicy,
  filesOfRepository,
  findArchived,
  findArchivedAt,
  findPolicy,
  findPolicyByName,
  insertPolicy,
  listPolicies,
  type PolicyRow,
  searchArchived,
  updatePolicy,
  versionsOfRepository,
} from './retention.queries.ts';
import { archivedArtifacts } from './retention.schema.ts';

export interface RetentionContext {
  db: Db;
  repositories: RepositoriesContext;
  /** The archive store (`GRANARY_ARCHIVE_STORE`); null when not configured. */
  archive: BlobStore | null;
  now: () => number;
  log: Logger;
}

/** The queue a policy run goes through (scheduled, or "Run now"). */
export const RETENTION_RUN_QUEUE = 'retention.run';
/** The cluster job that queues the scheduled policies that are due. */
export const RETENTION_SCHEDULE_JOB = 'retention.schedule';

/** Who policies act as (events and the trash name it). */
const RETENTION_PRINCIPAL: Principal = {
  id: '00000000-0000-0000-0000-000000000021',
  name: '_retention',
  admin: true,
};
const DRY_RUN_LIST_MAX = 1_000;

export function toPolicy(row: PolicyRow): RetentionPolicy {
  return {
    id: row.id,
    name: row.name,
    description: row.description,
    enabled: row.enabled,
    repositories: row.repositories,
    projectKey: row.projectKey,
    rules: retentionRulesSchema.parse(row.rules ?? {}),
    action: row.action === 'archive' ? 'archive' : 'delete',
    intervalHours: row.intervalHours,
    createdAt: row.createdAt.toISOString(),
    modifiedAt: row.modifiedAt.toISOString(),
    lastRunAt: row.lastRunAt?.toISOString() ?? null,
    nextRunAt: row.nextRunAt?.toISOString() ?? null,
    lastResult: (row.lastResult as RetentionRunResult | null) ?? null,
  };
}

export async function policies(ctx: RetentionContext): Promise<RetentionPolicy[]> {
  return (await listPolicies(ctx.db)).map(toPolicy);
}

export async function getPolicy(ctx: RetentionContext, id: string): Promise<RetentionPolicy> {
  const row = await findPolicy(ctx.db, id);
  if (!row) throw new NotFoundError(`Policy '${id}' not found`);
  return toPolicy(row);
}

async function checked(ctx: RetentionContext, raw: RetentionPolicyInput, id?: string) {
  const input = retentionPolicyInputSchema.parse(raw);
  const r = input.rules;
  if (
    [
      r.keepLastVersions,
      r.notDownloadedDays,
      r.olderThanDays,
      r.mavenSnapshotKeep,
      r.ociKeepTags,
      r.ociUntaggedDays,
    ].every((v) => v == null)
  )
    throw new InvalidError('A policy needs at least one rule that removes something');
  if (input.action === 'archive' && !ctx.archive)
    throw new InvalidError('No archive store is configured (GRANARY_ARCHIVE_STORE): choose delete');
  if (input.repositories.length === 0 && !input.projectKey)
    throw new InvalidError('Choose repositories or a project');
  for (const key of input.repositories) {
    const repo = await findRepository(ctx.db, key);
    if (repo?.rclass !== 'local') throw new InvalidError(`'${key}' is not a local repository`);
  }
  const same = await findPolicyByName(ctx.db, input.name);
  if (same && same.id !== id) throw new ConflictError('This name already exist');
  return input;
}

export async function createPolicy(
  ctx: RetentionContext,
  raw: RetentionPolicyInput,
): Promise<RetentionPolicy> {
  const input = await checked(ctx, raw);
  const now = new Date(ctx.now());
  const row = await insertPolicy(ctx.db, {
    ...input,
    nextRunAt: input.intervalHours ? new Date(now.getTime() + input.intervalHours * 3_600_000) : null,
  });
  return toPolicy(row);
}

export async function changePolicy(
  ctx: RetentionContext,
  id: string,
  raw: RetentionPolicyInput,
): Promise<RetentionPolicy> {
  const before = await findPolicy(ctx.db, id);
  if (!before) throw new NotFoundError(`Policy '${id}' not found`);
  const input = await checked(ctx, raw, id);
  const now = new Date(ctx.now());
  const nextRunAt =
    input.intervalHours == null
      ? null
      : input.intervalHours === before.intervalHours && before.nextRunAt
        ? before.nextRunAt
        : new Date(now.getTime() + input.intervalHours * 3_600_000);
  const row = await updatePolicy(ctx.db, id, { ...input, nextRunAt, modifiedAt: now });
  return toPolicy(row!);
}

export async function removePolicy(ctx: RetentionContext, id: string): Promise<void> {
  if (!(await deletePolicy(ctx.db, id))) throw new NotFoundError(`Policy '${id}' not found`);
}

/** The local repositories a policy applies to: those it names, else its project's. */
async function repositoriesOf(ctx: RetentionContext, policy: RetentionPolicy): Promise<RepoConfig[]> {
  if (policy.repositories.length > 0) {
    const out: RepoConfig[] = [];
    for (const key of policy.repositories) {
      const repo = await findRepository(ctx.db, key);
      if (repo?.rclass === 'local') out.push(repo);
    }
    return out;
  }
  const all = await listRepositories(ctx.db, { rclass: 'local' });
  return all.filter((r) => policy.projectKey && r.projectKey === policy.projectKey);
}

async function readJsonOf(ctx: RetentionContext, sha256: string): Promise<Record<string, unknown> | null> {
  try {
    const bytes = await buffer(await ctx.repositories.blobs.get(sha256));
    if (bytes[0] !== 0x7b) return null;
    return JSON.parse(bytes.toString('utf8')) as Record<string, unknown>;
  } catch {
    return null;
  }
}

async function candidatesOf(
  ctx: RetentionContext,
  policy: RetentionPolicy,
): Promise<{ repo: RepoConfig; units: Unit[] }[]> {
  const now = ctx.now();
  const out: { repo: RepoConfig; units: Unit[] }[] = [];
  for (const repo of await repositoriesOf(ctx, policy)) {
    const [files, versions] = await Promise.all([
      filesOfRepository(ctx.db, repo.id),
      versionsOfRepository(ctx.db, repo.id),
    ]);
    const units = await evaluateRepository(repo, files, versions, policy.rules, now, (sha) =>
      readJsonOf(ctx, sha),
    );
    out.push({ repo, units });
  }
  return out;
}

/** What the policy would remove now (nothing changes). */
export async function dryRun(ctx: RetentionContext, id: string): Promise<RetentionDryRun> {
  const policy = await getPolicy(ctx, id);
  const all = (await candidatesOf(ctx, policy)).flatMap((r) => r.units);
  return {
    candidates: all.slice(0, DRY_RUN_LIST_MAX).map(({ filePaths: _files, ...c }) => c),
    count: all.length,
    bytes: all.reduce((n, u) => n + u.bytes, 0),
    truncated: all.length > DRY_RUN_LIST_MAX,
  };
}

/**
 * Runs a policy: each candidate is deleted (through the repositories' delete, so through the trash,
 * with its `artifact.deleted` events and the format's documents regenerated) or archived. The outcome
 * is kept as the policy's last result.
 */
export async function runPolicy(
  ctx: RetentionContext,
  id: string,
  signal?: AbortSignal,
): Promise<RetentionRunResult> {
  const policy = await getPolicy(ctx, id);
  const found = await candidatesOf(ctx, policy);
  let done = 0;
  let failed = 0;
  let bytes = 0;
  let candidates = 0;
  for (const { repo, units } of found)
    for (const unit of units) {
      candidates++;
      if (signal?.aborted) break;
      try {
        if (policy.action === 'archive')
          await archiveFiles(ctx, repo, unit.filePaths, RETENTION_PRINCIPAL.name, policy.name);
        else
          for (const path of unit.paths)
            await deleteArtifacts(
              ctx.repositories,
              RETENTION_PRINCIPAL,
              RepoPath.parse(repo.key, path),
            ).catch((err) => {
              if (!(err instanceof NotFoundError)) throw err;
            });
        done++;
        bytes += unit.bytes;
      } catch (err) {
        failed++;
        ctx.log.warn(
          { policy: policy.name, repo: repo.key, paths: unit.paths, err: (err as Error).message },
          'retention policy could not remove a candidate',
        );
      }
    }
  const result: RetentionRunResult = {
    dryRun: false,
    candidates,
    bytes,
    done,
    failed,
    at: new Date(ctx.now()).toISOString(),
  };
  await updatePolicy(ctx.db, id, { lastRunAt: new Date(ctx.now()), lastResult: result });
  ctx.log.info({ policy: policy.name, ...result }, 'retention policy ran');
  return result;
}

/** The scheduled policies that are due, claimed for this run (their next run moved on). */
export async function duePolicies(ctx: RetentionContext): Promise<string[]> {
  return (await claimDuePolicies(ctx.db, new Date(ctx.now()))).map((r) => r.id);
}

// ---------------------------------------------------------------------------------------------
// The archive

const lifecycleEvent = (
  type: 'archived' | 'restored',
  row: { repoKey: string; path: string; sha256: string; size: number },
  by: string,
): DomainEvent => ({
  type: `artifact_lifecycle.${type}`,
  payload: {
    repo_key: row.repoKey,
    path: row.path,
    name: row.path.slice(row.path.lastIndexOf('/') + 1),
    sha256: row.sha256,
    size: row.size,
    by,
  },
});

function requireArchive(ctx: RetentionContext): BlobStore {
  if (!ctx.archive) throw new NotFoundError('No archive store is configured (GRANARY_ARCHIVE_STORE)');
  return ctx.archive;
}

/**
 * Archives files of a repository: their bytes copied to the archive store (verified by their sha256),
 * then their rows moved from the repository to `archived_artifacts` in one transaction with an
 * `artifact_lifecycle.archived` event each; clients no longer see them.
 */
export async function archiveFiles(
  ctx: RetentionContext,
  repo: RepoConfig,
  paths: string[],
  by: string,
  policy: string | null,
): Promise<number> {
  const archive = requireArchive(ctx);
  const handle = createSystemHandle(ctx.repositories, repo);
  for (const path of paths) {
    const file = await handle.stat(path);
    if (!file || (await archive.stat(file.sha256))) continue;
    await archive.put(await ctx.repositories.blobs.get(file.sha256), {
      sha256: file.sha256,
      size: file.size,
    });
  }
  const archivedAt = new Date(ctx.now());
  const taken = await takeOutArtifacts(ctx.repositories, repo, paths, async (tx, rows) => {
    await parkArtifacts(tx, archivedArtifacts, rows, () => ({
      repoKey: repo.key,
      archivedAt,
      archivedBy: by,
      policy,
    }));
    await publish(tx, ...rows.map((r) => lifecycleEvent('archived', { ...r, repoKey: repo.key }, by)));
  });
  return taken.length;
}

function toArchived(row: ArchivedRow): ArchivedArtifact {
  return {
    id: String(row.id),
    repoKey: row.repoKey,
    path: row.path,
    name: row.path.slice(row.path.lastIndexOf('/') + 1),
    size: row.size,
    sha256: row.sha256,
    archivedAt: row.archivedAt.toISOString(),
    archivedBy: row.archivedBy,
    createdAt: row.createdAt.toISOString(),
    policy: row.policy,
  };
}

function parseDate(value: string | undefined, field: string): Date | undefined {
  if (!value) return undefined;
  const at = new Date(value);
  if (Number.isNaN(at.getTime())) throw new InvalidError(`${field}: expected a date (yyyy-mm-dd)`);
  return at;
}

/** The Archive search (spec 001 §2 `/artifactoryRetention/search`): by name or path, repository, archive date. */
export async function searchArchive(
  ctx: RetentionContext,
  q: { q?: string; repo?: string; from?: string; to?: string; limit: number },
): Promise<ArchiveSearchAnswer> {
  const to = parseDate(q.to, 'to');
  // a bare day as `to` includes that day
  if (to && /^\d{4}-\d{2}-\d{2}$/.test(q.to!)) to.setUTCDate(to.getUTCDate() + 1);
  const { rows, total } = await searchArchived(ctx.db, {
    text: q.q?.trim() || undefined,
    repo: q.repo || undefined,
    from: parseDate(q.from, 'from'),
    to,
    limit: q.limit,
  });
  return { results: rows.map(toArchived), total };
}

/**
 * Restores archived files to their paths through the parking mechanism the trash shares
 * (`putBack`): the identical bytes back to the main store (verified by their sha256), the rows as they
 * were (properties and creation record kept), the format's documents regenerated as after a deploy;
 * refused (409) when another file is stored at the path now. One `artifact_lifecycle.restored` event each.
 */
export async function restoreArchived(
  ctx: RetentionContext,
  ids: string[],
  by: string,
): Promise<ArchiveRestoreAnswer> {
  const archive = requireArchive(ctx);
  const answer: ArchiveRestoreAnswer = { restored: [], errors: [] };
  for (const id of ids) {
    try {
      const row = /^\d+$/.test(id) ? await findArchived(ctx.db, Number(id)) : undefined;
      if (!row) throw new NotFoundError(`Archived file '${id}' not found`);
      const repo = await findRepository(ctx.db, row.repoKey);
      if (!repo) throw new NotFoundError(`Repository '${row.repoKey}' no longer exists`);
      await putBack(
        ctx.repositories,
        repo,
        [{ file: row, path: row.path, label: `${repo.key}/${row.path}` }],
        {
          by,
          fetchBytes: async (file) =>
            (
              await ctx.repositories.blobs.put(
                Readable.from(await archive.get(file.sha256)),
                { sha256: file.sha256, size: file.size },
                { holdReason: 'archive restore' },
              )
            ).hold,
          release: async (tx) => {
            if (!(await deleteArchived(tx, row.id)))
              throw new ConflictError(`'${row.path}' was restored meanwhile`);
            await publish(tx, lifecycleEvent('restored', row, by));
          },
        },
      );
      if (!(await archivedHolds(ctx.db, row.sha256))) await archive.delete(row.sha256);
      answer.restored.push({ id, repoKey: repo.key, path: row.path });
    } catch (err) {
      answer.errors.push({ id, message: (err as Error).message });
    }
  }
  return answer;
}

/** The client's answer for a path whose file is archived (spec 001 §8), or null. */
export async function expiredMessage(
  ctx: RetentionContext,
  repositoryId: string,
  path: string,
): Promise<string | null> {
  return (await findArchivedAt(ctx.db, repositoryId, path)) ? EXPIRED_ARTIFACT_MESSAGE : null;
}

/** Bytes and files in the archive per repository (the storage summary, issue 21). */
export async function archiveUsage(
  db: Db,
): Promise<{ repositoryId: string; repoKey: string; bytes: number; count: number }[]> {
  return (await archiveUsageRows(db)).map((r) => ({ ...r, bytes: Number(r.bytes), count: Number(r.count) }));
}
