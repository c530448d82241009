import {
  DISTRIBUTION_MESSAGES,
  type Environment,
  type EnvironmentCreate,
  type EnvironmentUpdate,
  environmentCreateSchema,
  environmentUpdateSchema,
  type Promotion,
  type PromotionRequest,
  promotionRequestSchema,
} from '@granary/contracts';
import { and, asc, desc, eq, sql } from 'drizzle-orm';
import { queryRows } from '../../platform/db/index.ts';
import { ConflictError, ForbiddenError, InvalidError, NotFoundError } from '../../platform/errors.ts';
import { type Executor, publish } from '../../platform/events/index.ts';
import type { Principal } from '../../platform/http/access-control.ts';
import {
  deleteArtifacts,
  findArtifact,
  findRepository,
  type LinkInput,
  linkArtifacts,
  RepoPath,
  type RepositoriesContext,
} from '../repositories/repositories.api.ts';
import {
  type BundleFileRow,
  type BundleRow,
  bundleEvent,
  bundleFiles,
  getBundleRow,
  requireBundle,
} from './bundles.ts';
import { type DistributionContext, uniqueViolation } from './context.ts';
import { releaseBundlePromotions, releaseEnvironments } from './distribution.schema.ts';

type EnvRow = typeof releaseEnvironments.$inferSelect;
type PromotionRow = typeof releaseBundlePromotions.$inferSelect;

const toEnvironment = (r: EnvRow): Environment => ({
  name: r.name,
  rank: r.rank,
  repositories: r.repositories,
});

function issues(error: { issues: { path: PropertyKey[]; message: string }[] }): string {
  return error.issues.map((i) => `${i.path.join('.') || 'body'}: ${i.message}`).join('; ');
}

export async function listEnvironments(ctx: DistributionContext): Promise<Environment[]> {
  return (
    await ctx.db
      .select()
      .from(releaseEnvironments)
      .orderBy(asc(releaseEnvironments.rank), asc(releaseEnvironments.name))
  ).map(toEnvironment);
}

async function checkRepositories(ctx: DistributionContext, keys: string[]): Promise<string[]> {
  const out: string[] = [];
  for (const key of keys) {
    const repo = await findRepository(ctx.db, key);
    if (!repo) throw new InvalidError(`repositories: repository '${key}' not found`);
    if (repo.rclass !== 'local') throw new InvalidError(`repositories: '${key}' is not a local repository`);
    if (!out.includes(repo.key)) out.push(repo.key);
  }
  return out;
}

export async function createEnvironment(
  ctx: DistributionContext,
  body: EnvironmentCreate,
): Promise<Environment> {
  const parsed = environmentCreateSchema.safeParse(body);
  if (!parsed.success) throw new InvalidError(issues(parsed.error));
  const repositories = await checkRepositories(ctx, parsed.data.repositories);
  const rank =
    parsed.data.rank ??
    ((await queryRows<{ m: number | null }>(ctx.db, sql`select max(rank) as m from release_environments`))[0]
      ?.m ?? 0) + 1;
  try {
    const [row] = await ctx.db
      .insert(releaseEnvironments)
      .values({ name: parsed.data.name.toUpperCase(), rank, repositories })
      .returning();
    return toEnvironment(row!);
  } catch (err) {
    if (uniqueViolation(err))
      throw new ConflictError(`Environment '${parsed.data.name.toUpperCase()}' already exists`);
    throw err;
  }
}

export async function updateEnvironment(
  ctx: DistributionContext,
  name: string,
  body: EnvironmentUpdate,
): Promise<Environment> {
  const parsed = environmentUpdateSchema.safeParse(body);
  if (!parsed.success) throw new InvalidError(issues(parsed.error));
  const set: Partial<EnvRow> = {};
  if (parsed.data.rank !== undefined) set.rank = parsed.data.rank;
  if (parsed.data.repositories !== undefined)
    set.repositories = await checkRepositories(ctx, parsed.data.repositories);
  const [row] = Object.keys(set).length
    ? await ctx.db
        .update(releaseEnvironments)
        .set(set)
        .where(eq(releaseEnvironments.name, name.toUpperCase()))
        .returning()
    : await ctx.db.select().from(releaseEnvironments).where(eq(releaseEnvironments.name, name.toUpperCase()));
  if (!row) throw new NotFoundError(`Environment '${name}' not found`);
  return toEnvironment(row);
}

export async function deleteEnvironment(ctx: DistributionContext, name: string): Promise<void> {
  const rows = await ctx.db
    .delete(releaseEnvironments)
    .where(eq(releaseEnvironments.name, name.toUpperCase()))
    .returning();
  if (rows.length === 0) throw new NotFoundError(`Environment '${name}' not found`);
}

function toPromotion(row: PromotionRow, bundle: Pick<BundleRow, 'name' | 'version'>): Promotion {
  return {
    id: row.id,
    status: row.status as Promotion['status'],
    repository_key: 'release-bundles-v2',
    release_bundle_name: bundle.name,
    release_bundle_version: bundle.version,
    environment: row.environment,
    included_repository_keys: row.repositories,
    operation: row.operation as Promotion['operation'],
    created_by: row.createdBy,
    created: row.createdAt.toISOString(),
    created_millis: row.createdAt.getTime(),
    messages: row.messages,
  };
}

export async function listPromotions(
  ctx: DistributionContext,
  principal: Principal | null,
  name: string,
  version: string,
): Promise<{ promotions: Promotion[]; total: number }> {
  const bundle = await getBundleRow(ctx, principal, name, version);
  const rows = await ctx.db
    .select()
    .from(releaseBundlePromotions)
    .where(eq(releaseBundlePromotions.bundleId, bundle.id))
    .orderBy(desc(releaseBundlePromotions.createdAt));
  return { promotions: rows.map((r) => toPromotion(r, bundle)), total: rows.length };
}

/**
 * A scanning policy that blocks release bundles (`block_release_bundle_distribution`, or a
 * `block_release_bundle_promotion` flag when given) with an active violation on one of the files.
 */
export async function blockingViolation(
  ctx: Pick<DistributionContext, 'db'>,
  files: Pick<BundleFileRow, 'sha256'>[],
  flag: 'block_release_bundle_promotion' | 'block_release_bundle_distribution',
): Promise<string | null> {
  const shas = [...new Set(files.map((f) => f.sha256))];
  if (shas.length === 0) return null;
  const rows = await queryRows<{
    policy: string;
    rule: string;
    issue_id: string;
    repo_key: string;
    path: string;
    body: unknown;
  }>(
    ctx.db,
    sql`select v.policy, v.rule, v.issue_id, v.repo_key, v.path, p.body
        from scan_violations v join scan_policies p on lower(p.name) = lower(v.policy)
        where v.state = 'active' and v.sha256 in (${sql.join(
          shas.map((s) => sql`${s}`),
          sql`, `,
        )})`,
  );
  for (const r of rows) {
    const body = (typeof r.body === 'string' ? JSON.parse(r.body) : r.body) as {
      rules?: { name?: string; actions?: Record<string, unknown> }[];
    };
    const rule = body.rules?.find((x) => x.name === r.rule);
    const actions = rule?.actions ?? {};
    if (actions[flag] === true || actions.block_release_bundle_distribution === true)
      return `blocked by policy '${r.policy}' (rule '${r.rule}'): ${r.issue_id} on ${r.repo_key}/${r.path}`;
  }
  return null;
}

interface Placement {
  file: BundleFileRow;
  repoKey: string;
}

/** Each file goes to the environment repository of its package type, or to the only one. */
async function place(
  ctx: DistributionContext,
  files: BundleFileRow[],
  targets: string[],
): Promise<Placement[]> {
  const repos = [];
  for (const key of targets) {
    const repo = await findRepository(ctx.db, key);
    if (repo?.rclass !== 'local')
      throw new InvalidError(`Environment repository '${key}' is not a local repository`);
    repos.push(repo);
  }
  const typeCache = new Map<string, string>();
  const out: Placement[] = [];
  for (const file of files) {
    let type = typeCache.get(file.repoKey);
    if (type === undefined) {
      type = (await findRepository(ctx.db, file.repoKey))?.packageType ?? 'generic';
      typeCache.set(file.repoKey, type);
    }
    const repo = repos.find((r) => r.packageType === type) ?? (repos.length === 1 ? repos[0] : undefined);
    if (!repo)
      throw new InvalidError(
        `The environment has no ${type} repository for ${file.repoKey}/${file.path} (its repositories: ${targets.join(', ')})`,
      );
    out.push({ file, repoKey: repo.key });
  }
  return out;
}

/** Copies the files into `placements` in `tx`: one savepoint per repository, all inside the caller's transaction. */
export async function linkInto(
  repositories: RepositoriesContext,
  tx: Executor,
  principal: Principal | null,
  placements: Placement[],
  properties: Record<string, string[]>,
): Promise<void> {
  const inTx = { ...repositories, db: tx as unknown as RepositoriesContext['db'] };
  const byRepo = new Map<string, Placement[]>();
  for (const p of placements) byRepo.set(p.repoKey, [...(byRepo.get(p.repoKey) ?? []), p]);
  for (const [repoKey, list] of byRepo) {
    const items: LinkInput[] = list.map((p) => ({
      path: RepoPath.parse(repoKey, p.file.path),
      stored: { sha256: p.file.sha256, sha1: p.file.sha1, md5: p.file.md5, size: p.file.size },
      properties,
    }));
    for (let i = 0; i < items.length; i += 200)
      await linkArtifacts(inTx, principal, repoKey, items.slice(i, i + 200));
  }
}

/** A file already at a target path with other content stops the promotion (names the first). */
export async function checksumConflict(
  ctx: Pick<DistributionContext, 'db'>,
  placements: Placement[],
): Promise<string | null> {
  for (const p of placements) {
    const repo = await findRepository(ctx.db, p.repoKey);
    if (!repo) continue;
    const existing = await findArtifact(ctx.db, repo.id, p.file.path);
    if (existing && existing.sha256 !== p.file.sha256)
      return `Checksum conflict at ${p.repoKey}/${p.file.path}: it holds sha256 ${existing.sha256}, the bundle's file is ${p.file.sha256}`;
  }
  return null;
}

/** `POST /lifecycle/api/v2/promotion/records/{name}/{version}`: all or nothing, recorded either way. */
export async function promote(
  ctx: DistributionContext,
  principal: Principal | null,
  name: string,
  version: string,
  body: PromotionRequest,
): Promise<Promotion> {
  const parsed = promotionRequestSchema.safeParse(body);
  if (!parsed.success) throw new InvalidError(issues(parsed.error));
  const input = parsed.data;
  const bundle = await getBundleRow(ctx, principal, name, version);
  await requireBundle(ctx, principal, 'write', name);
  if (bundle.status !== 'COMPLETED')
    throw new ConflictError(`Release bundle '${name}/${version}' is not complete`);
  const [env] = await ctx.db
    .select()
    .from(releaseEnvironments)
    .where(eq(releaseEnvironments.name, input.environment.toUpperCase()));
  if (!env) throw new InvalidError(`environment: '${input.environment}' is not an environment`);
  let targets = env.repositories;
  if (input.included_repository_keys?.length) {
    const outside = input.included_repository_keys.filter((k) => !targets.includes(k));
    if (outside.length > 0)
      throw new InvalidError(
        `included_repository_keys: ${outside.join(', ')} not in environment ${env.name}`,
      );
    targets = targets.filter((k) => input.included_repository_keys!.includes(k));
  }
  if (input.excluded_repository_keys?.length)
    targets = targets.filter((k) => !input.excluded_repository_keys!.includes(k));
  if (targets.length === 0)
    throw new InvalidError(
      `${DISTRIBUTION_MESSAGES.noDistributionRepositories} (environment ${env.name} has no repositories)`,
    );
  const by = principal?.name ?? 'anonymous';
  const files = await bundleFiles(ctx, bundle.id);

  const fail = async (message: string, status: 403 | 409 | 400) => {
    await ctx.db.insert(releaseBundlePromotions).values({
      bundleId: bundle.id,
      environment: env.name,
      status: 'FAILED',
      operation: input.operation,
      repositories: targets,
      messages: [{ text: message }],
      createdBy: by,
    });
    throw status === 403
      ? new ForbiddenError(message)
      : status === 409
        ? new ConflictError(message)
        : new InvalidError(message);
  };

  const blocked = await blockingViolation(ctx, files, 'block_release_bundle_promotion');
  if (blocked) return fail(`Promotion of ${name}/${version} to ${env.name} ${blocked}`, 403);
  let placements: Placement[];
  try {
    placements = await place(ctx, files, targets);
  } catch (err) {
    return fail((err as Error).message, 400);
  }
  const conflict = await checksumConflict(ctx, placements);
  if (conflict) return fail(`${conflict}; the promotion was stopped and nothing was copied`, 409);

  // Move: the files leave the previous environment's repositories (or, on a first promotion, nothing moves).
  const previous = input.operation === 'move' ? await previousPlacements(ctx, bundle, files, env.rank) : [];

  let row: PromotionRow;
  try {
    row = await ctx.db.transaction(async (tx) => {
      await linkInto(ctx.repositories, tx, principal, placements, {
        'release-bundle.name': [name],
        'release-bundle.version': [version],
        'release-bundle.environment': [env.name],
      });
      const inTx = { ...ctx.repositories, db: tx as unknown as RepositoriesContext['db'] };
      for (const p of previous)
        if (!placements.some((q) => q.repoKey === p.repoKey && q.file.path === p.file.path))
          // A move out of the previous environment, not a delete: not to the trash (issue 21).
          await deleteArtifacts(inTx, principal, RepoPath.parse(p.repoKey, p.file.path), {
            permanent: true,
          }).catch((err: unknown) => {
            if (!(err instanceof NotFoundError)) throw err;
            return 0;
          });
      const [inserted] = await tx
        .insert(releaseBundlePromotions)
        .values({
          bundleId: bundle.id,
          environment: env.name,
          status: 'COMPLETED',
          operation: input.operation,
          repositories: targets,
          messages: [
            {
              text: `${input.operation === 'move' ? 'Moved' : 'Copied'} ${files.length} files to ${targets.join(', ')}`,
            },
          ],
          createdBy: by,
        })
        .returning();
      await publish(
        tx,
        bundleEvent('promotion.promoted', bundle, {
          environment: env.name,
          promoted_by: by,
          repositories: targets,
        }),
      );
      return inserted!;
    });
  } catch (err) {
    if (err instanceof ForbiddenError || err instanceof ConflictError)
      return fail(err.message, err instanceof ForbiddenError ? 403 : 409);
    throw err;
  }
  return toPromotion(row, bundle);
}

async function previousPlacements(
  ctx: DistributionContext,
  bundle: BundleRow,
  files: BundleFileRow[],
  rank: number,
): Promise<Placement[]> {
  const rows = await ctx.db
    .select()
    .from(releaseBundlePromotions)
    .where(
      and(eq(releaseBundlePromotions.bundleId, bundle.id), eq(releaseBundlePromotions.status, 'COMPLETED')),
    )
    .orderBy(desc(releaseBundlePromotions.createdAt))
    .limit(1);
  const last = rows[0];
  if (!last) return [];
  const [env] = await ctx.db
    .select()
    .from(releaseEnvironments)
    .where(eq(releaseEnvironments.name, last.environment));
  if (env && env.rank === rank) return [];
  return place(ctx, files, last.repositories).catch(() => []);
}
