import {
  BUILD_INFO_PACKAGE_TYPE,
  BUILD_INFO_REPOSITORY,
  BUILD_PROPERTIES,
  type BuildArtifact,
  type BuildDependency,
  type BuildInfo,
  type BuildModule,
  type BuildPromotionAnswer,
  type BuildPromotionRequest,
  type BuildRetentionRequest,
  type BuildStatus,
  buildAppendSchema,
  buildInfoSchema,
  buildNameSchema,
  buildNumberSchema,
  type PermissionAction,
} from '@granary/contracts';
import type { z } from 'zod';
import type { RepositoryHandle } from '../../formats/sdk/format.ts';
import type { Db } from '../../platform/db/index.ts';
import {
  ConflictError,
  describeIssues,
  ForbiddenError,
  InvalidError,
  NotFoundError,
  UnauthorizedError,
} from '../../platform/errors.ts';
import { type DomainEvent, type Executor, publish } from '../../platform/events/index.ts';
import type { Principal } from '../../platform/http/access-control.ts';
import type { Jobs } from '../../platform/jobs/index.ts';
import type { Authorizer } from '../access/index.ts';
import {
  createSystemHandle,
  ensureSystemRepository,
  type FileTransfer,
  findRepository,
  type RepositoriesContext,
  transferFiles,
} from '../repositories/repositories.api.ts';
import {
  type BuildRunItemInsert,
  type BuildRunRow,
  deleteRunRows,
  findRuns,
  insertItems,
  insertRun,
  itemsOfRun,
  listRuns,
  updateRun,
} from './builds.queries.ts';
import { type LinkedFile, Linker } from './linking.ts';

/** Queue of run deletions too large to make a client wait (retention, big deletes). */
export const BUILD_DELETE_JOB = 'builds.delete';
/** More runs than this in one delete (or any artifact deletion by retention) go through the queue. */
const SYNC_DELETE_MAX_RUNS = 25;

export interface BuildsContext {
  db: Db;
  repositories: RepositoriesContext;
  authorizer: Authorizer;
  jobs: Jobs;
  now: () => number;
}

export interface BuildDeleteJob {
  name: string;
  runIds: string[];
  deleteArtifacts: boolean;
  by: string;
}

// --- names, times, permissions ------------------------------------------------------------------

function checkName(value: string, schema: z.ZodType<string>): string {
  const parsed = schema.safeParse(value);
  if (!parsed.success) throw new InvalidError(describeIssues(parsed.error.issues));
  return parsed.data;
}
export const checkBuildName = (name: string) => checkName(name, buildNameSchema);
export const checkBuildNumber = (number: string) => checkName(number, buildNumberSchema);

/** `started` as epoch ms: `yyyy-MM-dd'T'HH:mm:ss.SSSZ` (`+0300`) or any ISO 8601 time. */
export function startedMs(started: string): number {
  const iso = started.trim().replace(/([+-]\d{2})(\d{2})$/, '$1:$2');
  const ms = Date.parse(iso);
  if (!Number.isFinite(ms))
    throw new InvalidError(`started: "${started}" is not a time (yyyy-MM-ddTHH:mm:ss.SSSZ)`);
  return ms;
}

/** Artifactory's time format: `2026-03-01T10:00:00.000+0000` (UTC). */
export function artifactoryTime(ms: number): string {
  return new Date(ms).toISOString().replace('Z', '+0000');
}

const actorName = (principal: Principal | null) => principal?.name ?? 'anonymous';

/**
 * Build permission targets (spec 001 "build permission targets"): a target's `build` resource names
 * builds (or `ANY`, or Artifactory's `artifactory-build-info`) and Ant patterns on the build name
 * (`my-app`, `my-*`, `my-app/**`). Admins may do all.
 */
export async function mayOnBuild(
  ctx: BuildsContext,
  principal: Principal | null,
  action: PermissionAction,
  name: string,
): Promise<boolean> {
  const refs = [
    { kind: 'build' as const, key: name, path: name },
    { kind: 'build' as const, key: BUILD_INFO_REPOSITORY, path: name },
    { kind: 'build' as const, key: BUILD_INFO_REPOSITORY, path: `${name}/` },
  ];
  for (const ref of refs) if (await ctx.authorizer.can(principal, action, ref)) return true;
  return false;
}

/** 401 for anonymous callers; a signed-in one who may not even read the build hears 404. */
export async function authorizeBuild(
  ctx: BuildsContext,
  principal: Principal | null,
  action: PermissionAction,
  name: string,
): Promise<void> {
  if (await mayOnBuild(ctx, principal, action, name)) return;
  if (!principal) throw new UnauthorizedError();
  if (action !== 'read' && (await mayOnBuild(ctx, principal, 'read', name)))
    throw new ForbiddenError(`You do not have ${action} permission on build '${name}'`);
  if (action === 'write') throw new ForbiddenError(`You do not have permission to publish build '${name}'`);
  throw new NotFoundError(`Build '${name}' not found`);
}

// --- the stored document ------------------------------------------------------------------------

async function infoRepository(ctx: BuildsContext): Promise<RepositoryHandle> {
  const repo = await ensureSystemRepository(
    ctx.db,
    BUILD_INFO_REPOSITORY,
    BUILD_INFO_PACKAGE_TYPE,
    'Build-info documents (issue 19), hidden',
  );
  return createSystemHandle(ctx.repositories, repo);
}

export function documentPath(name: string, number: string, started: string): string {
  return `${name}/${number}-${startedMs(started)}.json`;
}

async function readText(handle: RepositoryHandle, path: string): Promise<string> {
  const file = await handle.stat(path);
  if (!file) throw new NotFoundError(`The build-info document '${path}' is missing`);
  const chunks: Buffer[] = [];
  for await (const chunk of await file.open()) chunks.push(chunk as Buffer);
  return Buffer.concat(chunks).toString('utf8');
}

/** The run's document as stored (the bytes as published, or as appended to). */
export async function readDocument(ctx: BuildsContext, run: BuildRunRow): Promise<string> {
  return readText(await infoRepository(ctx), run.documentPath);
}

/** The build-info as the REST answers show it: the document, with the promotions in `statuses`. */
export async function buildInfoOf(ctx: BuildsContext, run: BuildRunRow): Promise<BuildInfo> {
  const doc = JSON.parse(await readDocument(ctx, run)) as BuildInfo;
  const statuses = [...(doc.statuses ?? []), ...(run.statuses as BuildStatus[])];
  return statuses.length > 0 ? { ...doc, statuses } : doc;
}

function parseJson(text: string, what: string): unknown {
  if (text.trim() === '') throw new InvalidError(`${what}: the body is empty`);
  try {
    return JSON.parse(text);
  } catch (err) {
    throw new InvalidError(`${what} is not valid JSON: ${(err as Error).message}`);
  }
}

export function parseBody<S extends z.ZodType>(text: string, schema: S, what: string): z.output<S> {
  const parsed = schema.safeParse(parseJson(text, what));
  if (!parsed.success) throw new InvalidError(`${what}: ${describeIssues(parsed.error.issues)}`);
  return parsed.data;
}

const lower = (s: string | undefined) => (s && /^[0-9a-fA-F]+$/.test(s) ? s.toLowerCase() : null);

function itemsOf(runId: string, modules: BuildModule[]): BuildRunItemInsert[] {
  const out: BuildRunItemInsert[] = [];
  for (const [i, m] of modules.entries()) {
    const moduleId = m.id ?? `module-${i + 1}`;
    for (const a of m.artifacts ?? [])
      out.push({
        runId,
        role: 'produced',
        moduleId,
        name: a.name ?? a.path ?? '',
        type: a.type ?? null,
        path: a.path ?? null,
        sha256: lower(a.sha256),
        sha1: lower(a.sha1),
        md5: lower(a.md5),
      });
    for (const d of m.dependencies ?? [])
      out.push({
        runId,
        role: 'used',
        moduleId,
        name: d.id ?? '',
        type: d.type ?? null,
        sha256: lower(d.sha256),
        sha1: lower(d.sha1),
        md5: lower(d.md5),
        scopes: d.scopes ?? [],
        requestedBy: d.requestedBy ?? [],
      });
  }
  return out;
}

const count = (modules: BuildModule[], key: 'artifacts' | 'dependencies') =>
  modules.reduce((n, m) => n + (m[key]?.length ?? 0), 0);

function buildEvent(
  type: 'uploaded' | 'deleted' | 'promoted',
  run: Pick<BuildRunRow, 'name' | 'number' | 'started'>,
  by: string,
): DomainEvent {
  return {
    type: `build.${type}`,
    payload: {
      build_name: run.name,
      build_number: run.number,
      build_started: run.started,
      build_repo: BUILD_INFO_REPOSITORY,
      by,
    },
  };
}

function isUniqueViolation(err: unknown): boolean {
  let e = err as { code?: string; cause?: unknown } | undefined;
  for (let i = 0; e && i < 4; i++, e = e.cause as typeof e) if (e.code === '23505') return true;
  return false;
}

/** Sets `build.name`, `build.number`, `build.timestamp` on every stored file the run's artifacts link to. */
async function tagArtifacts(
  ctx: BuildsContext,
  run: BuildRunRow,
  artifacts: BuildArtifact[],
): Promise<number> {
  const linker = new Linker(ctx.db);
  let tagged = 0;
  const handles = new Map<string, RepositoryHandle>();
  for (const a of artifacts) {
    const file = await linker.link(a);
    if (!file) continue;
    let handle = handles.get(file.repoKey);
    if (!handle) {
      const repo = await findRepository(ctx.db, file.repoKey);
      if (!repo) continue;
      handle = createSystemHandle(ctx.repositories, repo);
      handles.set(file.repoKey, handle);
    }
    const stored = await handle.stat(file.path);
    if (!stored) continue;
    try {
      await handle.setProperties(file.path, {
        ...stored.properties,
        [BUILD_PROPERTIES.name]: [run.name],
        [BUILD_PROPERTIES.number]: [run.number],
        [BUILD_PROPERTIES.timestamp]: [String(run.startedAt.getTime())],
      });
      tagged++;
    } catch (err) {
      // The run is stored either way; a file deleted meanwhile just stays untagged.
      if (!(err instanceof NotFoundError)) throw err;
    }
  }
  return tagged;
}

// --- publish, append ----------------------------------------------------------------------------

/**
 * `PUT /api/build`: stores the build-info document unmodified in the build-info repository, indexes
 * its modules' artifacts and dependencies, tags the stored files its artifacts link to, then applies
 * the document's own `buildRetention` (as Artifactory does), through the queue.
 */
export async function publishBuild(
  ctx: BuildsContext,
  principal: Principal | null,
  body: string,
): Promise<BuildRunRow> {
  const info = parseBody(body, buildInfoSchema, 'The build-info');
  await authorizeBuild(ctx, principal, 'write', info.name);
  const startedAt = startedMs(info.started);
  const existing = await findRuns(ctx.db, info.name, info.number);
  const duplicate = () =>
    new ConflictError(
      `Build '${info.name}' number '${info.number}' started ${info.started} is already stored; publish it under another number or delete that run first`,
    );
  if (existing.some((r) => r.started === info.started)) throw duplicate();
  const handle = await infoRepository(ctx);
  const path = documentPath(info.name, info.number, info.started);
  const modules = info.modules ?? [];
  const by = actorName(principal);
  // `derived`: the document announces `build.*` events, not `artifact.*` ones of a hidden repository.
  try {
    await handle.deploy(path, Buffer.from(body, 'utf8'), { noOverwrite: true, derived: true });
  } catch (err) {
    if (err instanceof ConflictError) throw duplicate();
    throw err;
  }
  let run: BuildRunRow;
  try {
    run = await ctx.db.transaction(async (tx) => {
      const row = await insertRun(tx, {
        name: info.name,
        number: info.number,
        started: info.started,
        startedAt: new Date(startedAt),
        documentPath: path,
        agent: info.agent?.name ? [info.agent.name, info.agent.version].filter(Boolean).join('/') : null,
        url: info.url ?? null,
        durationMillis: info.durationMillis ?? null,
        modules: modules.length,
        artifacts: count(modules, 'artifacts'),
        dependencies: count(modules, 'dependencies'),
        createdBy: by,
      });
      await insertItems(tx, itemsOf(row.id, modules));
      await publish(tx, buildEvent('uploaded', row, by));
      return row;
    });
  } catch (err) {
    if (isUniqueViolation(err)) throw duplicate();
    await handle.delete(path, { derived: true }).catch(() => {});
    throw err;
  }
  await tagArtifacts(
    ctx,
    run,
    modules.flatMap((m) => m.artifacts ?? []),
  );
  if (
    info.buildRetention &&
    (info.buildRetention.count !== undefined || info.buildRetention.minimumBuildDate !== undefined)
  )
    await applyRetention(
      ctx,
      principal,
      info.name,
      {
        count: info.buildRetention.count,
        minimumBuildDate: info.buildRetention.minimumBuildDate,
        deleteBuildArtifacts: info.buildRetention.deleteBuildArtifacts ?? false,
        buildNumbersNotToBeDiscarded: info.buildRetention.buildNumbersNotToBeDiscarded ?? [],
      },
      { async: true, checked: true },
    );
  return run;
}

/** The newest run of `name` / `number` the caller may read (404 otherwise). */
export async function findRun(
  ctx: BuildsContext,
  principal: Principal | null,
  name: string,
  number: string,
  action: PermissionAction = 'read',
): Promise<BuildRunRow> {
  checkBuildName(name);
  checkBuildNumber(number);
  await authorizeBuild(ctx, principal, action, name);
  const [run] = await findRuns(ctx.db, name, number);
  if (!run) throw new NotFoundError(`Build '${name}' number '${number}' not found`);
  return run;
}

/** `POST /api/build/append/{name}/{number}`: adds modules to the newest run of that number. */
export async function appendModules(
  ctx: BuildsContext,
  principal: Principal | null,
  name: string,
  number: string,
  body: string,
): Promise<void> {
  const run = await findRun(ctx, principal, name, number, 'write');
  const { modules } = parseBody(body, buildAppendSchema, 'The modules to append');
  const handle = await infoRepository(ctx);
  await ctx.repositories.withLock(`build:${run.id}`, async () => {
    const doc = JSON.parse(await readText(handle, run.documentPath)) as Record<string, unknown>;
    const before = Array.isArray(doc.modules) ? (doc.modules as BuildModule[]) : [];
    const ids = new Set(before.map((m) => m.id));
    const clash = modules.find((m) => m.id && ids.has(m.id));
    if (clash)
      throw new ConflictError(`Module '${clash.id}' is already part of build '${name}' number '${number}'`);
    doc.modules = [...before, ...modules];
    await handle.deploy(run.documentPath, Buffer.from(JSON.stringify(doc), 'utf8'), { derived: true });
    await ctx.db.transaction(async (tx) => {
      await insertItems(tx, itemsOf(run.id, modules));
      await updateRun(tx, run.id, {
        modules: run.modules + modules.length,
        artifacts: run.artifacts + count(modules, 'artifacts'),
        dependencies: run.dependencies + count(modules, 'dependencies'),
      });
    });
  });
  await tagArtifacts(
    ctx,
    run,
    modules.flatMap((m) => m.artifacts ?? []),
  );
}

// --- delete, retention --------------------------------------------------------------------------

/** Deletes runs (rows, documents, and optionally the stored files tagged as theirs), one `build.deleted` each. */
export async function deleteRuns(ctx: BuildsContext, job: BuildDeleteJob): Promise<number> {
  const handle = await infoRepository(ctx);
  let deleted = 0;
  for (const id of job.runIds) {
    const runs = (await listRuns(ctx.db, job.name)).filter((r) => r.id === id);
    const run = runs[0];
    if (!run) continue;
    if (job.deleteArtifacts) {
      const linker = new Linker(ctx.db);
      for (const item of await itemsOfRun(ctx.db, run.id, 'produced')) {
        for (const file of await linker.candidates(item, run)) {
          if (!(await taggedWith(ctx, file, run))) continue;
          const repo = await findRepository(ctx.db, file.repoKey);
          if (repo)
            await createSystemHandle(ctx.repositories, repo)
              .delete(file.path)
              .catch(() => 0);
        }
      }
    }
    await ctx.db.transaction(async (tx) => {
      await deleteRunRows(tx, [run.id]);
      await publish(tx, buildEvent('deleted', run, job.by));
    });
    await handle.delete(run.documentPath, { derived: true }).catch(() => 0);
    deleted++;
  }
  return deleted;
}

async function taggedWith(ctx: BuildsContext, file: LinkedFile, run: BuildRunRow): Promise<boolean> {
  const repo = await findRepository(ctx.db, file.repoKey);
  if (!repo) return false;
  const stored = await createSystemHandle(ctx.repositories, repo).stat(file.path);
  const props = stored?.properties ?? {};
  return (
    !!props[BUILD_PROPERTIES.name]?.includes(run.name) &&
    !!props[BUILD_PROPERTIES.number]?.includes(run.number)
  );
}

/** Runs the deletion now, or through the queue when it is large or asked to be asynchronous. */
async function scheduleDelete(
  ctx: BuildsContext,
  job: BuildDeleteJob,
  async: boolean,
): Promise<{ deleted: number; queued: boolean }> {
  if (job.runIds.length === 0) return { deleted: 0, queued: false };
  if (async || job.runIds.length > SYNC_DELETE_MAX_RUNS) {
    await ctx.jobs.enqueue(ctx.db, BUILD_DELETE_JOB, job);
    return { deleted: 0, queued: true };
  }
  return { deleted: await deleteRuns(ctx, job), queued: false };
}

/**
 * `DELETE /api/build/{name}?buildNumbers=&artifacts=&deleteAll=` and `POST /api/build/delete`: the
 * runs named (every run of a number), or all runs. Delete permission on the build.
 */
export async function deleteBuilds(
  ctx: BuildsContext,
  principal: Principal | null,
  input: { buildName: string; buildNumbers: string[]; deleteArtifacts: boolean; deleteAll: boolean },
): Promise<{ deleted: number; queued: boolean; message: string }> {
  const name = checkBuildName(input.buildName);
  await authorizeBuild(ctx, principal, 'delete', name);
  const runs = await listRuns(ctx.db, name);
  if (!input.deleteAll && input.buildNumbers.length === 0)
    throw new InvalidError('Name the build numbers to delete (buildNumbers) or delete all (deleteAll)');
  const wanted = new Set(input.buildNumbers);
  const chosen = input.deleteAll ? runs : runs.filter((r) => wanted.has(r.number));
  if (chosen.length === 0)
    throw new NotFoundError(
      input.deleteAll
        ? `Build '${name}' not found`
        : `No run of build '${name}' has number ${input.buildNumbers.join(', ')}`,
    );
  const result = await scheduleDelete(
    ctx,
    {
      name,
      runIds: chosen.map((r) => r.id),
      deleteArtifacts: input.deleteArtifacts,
      by: actorName(principal),
    },
    false,
  );
  const numbers = chosen.map((r) => r.number).join(', ');
  return {
    ...result,
    message: result.queued
      ? `Deletion of ${chosen.length} runs of build '${name}' was scheduled`
      : `Deleted build '${name}' number(s) ${numbers}`,
  };
}

function dateMs(value: number | string | undefined): number | undefined {
  if (value === undefined || value === '') return undefined;
  if (typeof value === 'number') return value;
  if (/^\d+$/.test(value)) return Number(value);
  return startedMs(value);
}

/**
 * Retention (`POST /api/build/retention/{name}`, and a build-info's `buildRetention`): keeps the
 * `count` newest runs and discards those started before `minimumBuildDate`, never the numbers in
 * `buildNumbersNotToBeDiscarded`; `deleteBuildArtifacts` removes the files tagged as theirs too.
 * Manage permission on the build (a publish applies the document's own rule under write).
 */
export async function applyRetention(
  ctx: BuildsContext,
  principal: Principal | null,
  name: string,
  rule: BuildRetentionRequest,
  opts: { async?: boolean; checked?: boolean } = {},
): Promise<{ discarded: string[]; queued: boolean }> {
  checkBuildName(name);
  if (!opts.checked) await authorizeBuild(ctx, principal, 'manage', name);
  const runs = await listRuns(ctx.db, name);
  const keep = new Set(rule.buildNumbersNotToBeDiscarded ?? []);
  const minimum = dateMs(rule.minimumBuildDate);
  const discard = runs.filter((r, i) => {
    if (keep.has(r.number)) return false;
    if (rule.count !== undefined && i >= rule.count) return true;
    return minimum !== undefined && r.startedAt.getTime() < minimum;
  });
  const { queued } = await scheduleDelete(
    ctx,
    {
      name,
      runIds: discard.map((r) => r.id),
      deleteArtifacts: rule.deleteBuildArtifacts ?? false,
      by: actorName(principal),
    },
    opts.async ?? false,
  );
  return { discarded: discard.map((r) => r.number), queued };
}

// --- promotion ----------------------------------------------------------------------------------

/**
 * `POST /api/build/promote/{name}/{number}`: moves (or copies) the run's artifacts, and its
 * dependencies when asked (of the scopes asked), to `targetRepo` at the same paths, sets `properties`
 * on them, and records the status. All or nothing: every file is checked first (read on the build,
 * the source permission, write on the target, conflicts), then one transaction moves them, records
 * the status and publishes `build.promoted` and `promotion.promoted`. A dry run only checks.
 */
export async function promoteBuild(
  ctx: BuildsContext,
  principal: Principal | null,
  name: string,
  number: string,
  request: BuildPromotionRequest,
): Promise<BuildPromotionAnswer> {
  const run = await findRun(ctx, principal, name, number, 'read');
  if (!principal) throw new UnauthorizedError();
  const messages: BuildPromotionAnswer['messages'] = [];
  const target = request.targetRepo ? await findRepository(ctx.db, request.targetRepo) : undefined;
  if (request.targetRepo && !target)
    throw new NotFoundError(`Target repository '${request.targetRepo}' not found`);
  if (target && target.rclass !== 'local')
    throw new InvalidError(`The target repository '${target.key}' must be a local repository`);
  if (!request.targetRepo && !request.status)
    throw new InvalidError('Name a target repository (targetRepo) or a status to promote to');
  const linker = new Linker(ctx.db);
  const transfers: FileTransfer[] = [];
  const seen = new Set<string>();
  const consider = async (
    item: { name: string; sha256: string | null; sha1: string | null; md5: string | null },
    what: string,
  ) => {
    const candidates = await linker.candidates(item, run);
    const file = request.sourceRepo
      ? candidates.find((c) => c.repoKey.toLowerCase() === request.sourceRepo!.toLowerCase())
      : candidates[0];
    if (!file) {
      const message = `${what} '${item.name}' is not stored${request.sourceRepo ? ` in '${request.sourceRepo}'` : ''}: skipped`;
      messages.push({ level: 'warning', message });
      return;
    }
    const key = `${file.repoKey}/${file.path}`;
    if (seen.has(key) || !target) return;
    seen.add(key);
    transfers.push({
      from: { repoKey: file.repoKey, path: file.path },
      to: { repoKey: target.key, path: file.path },
    });
  };
  if (target && request.artifacts)
    for (const item of await itemsOfRun(ctx.db, run.id, 'produced')) await consider(item, 'Artifact');
  if (target && request.dependencies)
    for (const item of await itemsOfRun(ctx.db, run.id, 'used')) {
      const scopes = item.scopes as string[];
      if (request.scopes?.length && !scopes.some((s) => request.scopes!.includes(s))) continue;
      await consider(item, 'Dependency');
    }
  const by = actorName(principal);
  const timestampMs = request.timestamp ? startedMs(request.timestamp) : ctx.now();
  const status: BuildStatus | undefined =
    request.status || target
      ? {
          status: request.status ?? 'promoted',
          comment: request.comment ?? '',
          repository: target?.key ?? '',
          timestamp: artifactoryTime(timestampMs),
          user: by,
          ciUser: request.ciUser ?? by,
          timestampDate: timestampMs,
        }
      : undefined;
  const record = async (tx: Executor) => {
    if (!status) return;
    const statuses = [...(run.statuses as BuildStatus[]), status];
    await updateRun(tx, run.id, { statuses, status: status.status });
    const payload = {
      build_name: run.name,
      build_number: run.number,
      build_started: run.started,
      build_repo: BUILD_INFO_REPOSITORY,
      status: status.status,
      target_repo_key: target?.key ?? '',
      comment: status.comment ?? '',
      by,
    };
    await publish(tx, { type: 'build.promoted', payload }, { type: 'promotion.promoted', payload });
  };
  const properties = request.properties ? { ...request.properties } : undefined;
  const outcome = await transferFiles(
    ctx.repositories,
    principal,
    request.copy ? 'copy' : 'move',
    transfers,
    {
      dryRun: request.dryRun,
      properties,
      inTransaction: record,
    },
  );
  const verb = request.copy ? 'copy' : 'move';
  for (const [from, to] of outcome.files)
    messages.push({
      level: 'info',
      message: `${request.dryRun ? `would ${verb}` : `${verb === 'copy' ? 'copied' : 'moved'}`} ${from} to ${to}`,
    });
  for (const there of outcome.alreadyThere)
    messages.push({ level: 'info', message: `${there} is already in place` });
  if (request.dryRun) messages.push({ level: 'info', message: 'Dry run: nothing was changed' });
  else if (status)
    messages.push({
      level: 'info',
      message: `Build '${name}' number '${number}' promoted to status ${status.status}`,
    });
  return { messages };
}

// --- helpers the routes and the console use ------------------------------------------------------

export type { BuildArtifact, BuildDependency };
