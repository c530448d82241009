import { randomBytes, timingSafeEqual } from 'node:crypto';
import { Readable } from 'node:stream';
import {
  type BundleManifest,
  bundleManifestSchema,
  DISTRIBUTION_MESSAGES,
  type DistributeRequest,
  type Distribution,
  type DistributionStatus,
  type DistributionTarget,
  type DistributionTargetCreate,
  type DistributionTargetUpdate,
  distributeRequestSchema,
  distributionTargetCreateSchema,
  distributionTargetUpdateSchema,
  type Received,
  type ReceiveRequest,
  receiveRequestSchema,
} from '@granary/contracts';
import { and, asc, desc, eq, isNotNull, sql } from 'drizzle-orm';
import {
  ConflictError,
  ForbiddenError,
  InvalidError,
  NotFoundError,
  UnauthorizedError,
} from '../../platform/errors.ts';
import { type Executor, publish } from '../../platform/events/index.ts';
import type { Principal } from '../../platform/http/access-control.ts';
import { enqueueJob, type QueuedJobContext } from '../../platform/jobs/index.ts';
import { openFor, registerSealedColumn, sealFor } from '../../platform/secrets/at-rest.ts';
import { findRepository } from '../repositories/repositories.api.ts';
import {
  type BundleRow,
  bundleEvent,
  bundleFiles,
  checkNameVersion,
  findBundle,
  getBundleRow,
  type ResolvedFile,
  requireBundle,
  sha256Hex,
  storeBundle,
} from './bundles.ts';
import type { DistributionContext } from './context.ts';
import {
  distributions,
  distributionTargetStatuses,
  distributionTargets,
  receivedBundles,
  releaseBundles,
} from './distribution.schema.ts';
import { trustedKeyById, verifyDetached } from './keys.ts';
import { blockingViolation, checksumConflict, linkInto } from './promotion.ts';

registerSealedColumn({ table: 'distribution_targets', key: 'name', column: 'token_sealed' });
registerSealedColumn({ table: 'distributions', key: 'id', column: 'pull_token_sealed' });
registerSealedColumn({ table: 'received_bundles', key: 'id', column: 'pull_token_sealed' });

export const SEND_QUEUE = 'distribution.send';
export const RECEIVE_QUEUE = 'distribution.receive';
export const TRACK_JOB = 'distribution.track';
const SEND_ATTEMPTS = 8;
const RECEIVE_ATTEMPTS = 20;
export const PULL_TOKEN_HEADER = 'x-granary-pull-token';
const API = '/lifecycle/api/v2/distribution';

type TargetRow = typeof distributionTargets.$inferSelect;
type StatusRow = typeof distributionTargetStatuses.$inferSelect;
type ReceivedRow = typeof receivedBundles.$inferSelect;

function issues(error: { issues: { path: PropertyKey[]; message: string }[] }): string {
  return error.issues.map((i) => `${i.path.join('.') || 'body'}: ${i.message}`).join('; ');
}
const last4 = (token: string) => token.slice(-4);

// ------------------------------------------------------------------ targets

const toTarget = (r: TargetRow): DistributionTarget => ({
  name: r.name,
  url: r.url,
  tokenLast4: r.tokenLast4,
  created: r.createdAt.toISOString(),
});

export async function listTargets(ctx: DistributionContext): Promise<DistributionTarget[]> {
  return (await ctx.db.select().from(distributionTargets).orderBy(asc(distributionTargets.name))).map(
    toTarget,
  );
}

export async function createTarget(
  ctx: DistributionContext,
  body: DistributionTargetCreate,
): Promise<DistributionTarget> {
  const parsed = distributionTargetCreateSchema.safeParse(body);
  if (!parsed.success) throw new InvalidError(issues(parsed.error));
  const { name, url, token } = parsed.data;
  const [exists] = await ctx.db.select().from(distributionTargets).where(eq(distributionTargets.name, name));
  if (exists) throw new ConflictError(`Distribution target '${name}' already exists`);
  const [row] = await ctx.db
    .insert(distributionTargets)
    .values({
      name,
      url: url.replace(/\/+$/, ''),
      tokenSealed: sealFor(ctx.db, token),
      tokenLast4: last4(token),
    })
    .returning();
  return toTarget(row!);
}

export async function updateTarget(
  ctx: DistributionContext,
  name: string,
  body: DistributionTargetUpdate,
): Promise<DistributionTarget> {
  const parsed = distributionTargetUpdateSchema.safeParse(body);
  if (!parsed.success) throw new InvalidError(issues(parsed.error));
  const set: Partial<TargetRow> = {};
  if (parsed.data.url) set.url = parsed.data.url.replace(/\/+$/, '');
  if (parsed.data.token) {
    set.tokenSealed = sealFor(ctx.db, parsed.data.token);
    set.tokenLast4 = last4(parsed.data.token);
  }
  const [row] = Object.keys(set).length
    ? await ctx.db.update(distributionTargets).set(set).where(eq(distributionTargets.name, name)).returning()
    : await ctx.db.select().from(distributionTargets).where(eq(distributionTargets.name, name));
  if (!row) throw new NotFoundError(`Distribution target '${name}' not found`);
  return toTarget(row);
}

export async function deleteTarget(ctx: DistributionContext, name: string): Promise<void> {
  const rows = await ctx.db.delete(distributionTargets).where(eq(distributionTargets.name, name)).returning();
  if (rows.length === 0) throw new NotFoundError(`Distribution target '${name}' not found`);
}

// ------------------------------------------------------------------ source side

function worst(statuses: DistributionStatus[]): DistributionStatus {
  if (statuses.includes('FAILED')) return 'FAILED';
  if (statuses.includes('IN_PROGRESS')) return 'IN_PROGRESS';
  return 'COMPLETED';
}

async function trackerOf(
  ctx: DistributionContext,
  row: typeof distributions.$inferSelect,
  bundle: Pick<BundleRow, 'name' | 'version'>,
): Promise<Distribution> {
  const targets = await ctx.db
    .select()
    .from(distributionTargetStatuses)
    .where(eq(distributionTargetStatuses.distributionId, row.id))
    .orderBy(asc(distributionTargetStatuses.target));
  const list = targets.map((t) => ({
    target: t.target,
    status: t.status as DistributionStatus,
    reason: t.reason,
    files_done: t.filesDone,
    files_total: t.filesTotal,
    attempts: t.attempts,
    updated: t.updatedAt.toISOString(),
  }));
  return {
    tracker_id: row.id,
    release_bundle_name: bundle.name,
    release_bundle_version: bundle.version,
    distributed_by: row.distributedBy,
    distributed_at: row.createdAt.toISOString(),
    status: worst(list.map((t) => t.status)),
    targets: list,
  };
}

/** `POST /lifecycle/api/v2/distribution/distribute/{name}/{version}`: a tracker, the targets told by a job. */
export async function distribute(
  ctx: DistributionContext,
  principal: Principal | null,
  origin: string,
  name: string,
  version: string,
  body: DistributeRequest,
): Promise<Distribution> {
  const parsed = distributeRequestSchema.safeParse(body ?? {});
  if (!parsed.success) throw new InvalidError(issues(parsed.error));
  const bundle = await getBundleRow(ctx, principal, name, version);
  await requireBundle(ctx, principal, 'manage', name);
  const all = await ctx.db.select().from(distributionTargets).orderBy(asc(distributionTargets.name));
  if (all.length === 0) throw new InvalidError('No distribution targets are configured');
  const wanted = [
    ...(parsed.data.targets ?? []),
    ...(parsed.data.distribution_rules ?? []).map((r) => r.site_name),
  ];
  if (wanted.length === 0) throw new InvalidError('targets: name at least one distribution target (or "*")');
  const chosen = wanted.includes('*') ? all : all.filter((t) => wanted.includes(t.name));
  const unknown = wanted.filter((w) => w !== '*' && !all.some((t) => t.name === w));
  if (unknown.length > 0)
    throw new InvalidError(`targets: unknown distribution target ${unknown.join(', ')}`);
  const files = await bundleFiles(ctx, bundle.id);
  const blocked = await blockingViolation(ctx, files, 'block_release_bundle_distribution');
  if (blocked) throw new ForbiddenError(`Distribution of ${name}/${version} ${blocked}`);
  const total = new Set(files.map((f) => f.sha256)).size;
  if (parsed.data.dry_run)
    return {
      tracker_id: '',
      release_bundle_name: name,
      release_bundle_version: version,
      distributed_by: principal?.name ?? 'anonymous',
      distributed_at: new Date(ctx.now()).toISOString(),
      status: 'IN_PROGRESS',
      targets: chosen.map((t) => ({
        target: t.name,
        status: 'IN_PROGRESS' as const,
        reason: null,
        files_done: 0,
        files_total: total,
        attempts: 0,
        updated: new Date(ctx.now()).toISOString(),
      })),
    };
  const token = randomBytes(32).toString('base64url');
  const base = (ctx.baseUrl ?? origin).replace(/\/+$/, '');
  const by = principal?.name ?? 'anonymous';
  const row = await ctx.db.transaction(async (tx) => {
    const [d] = await tx
      .insert(distributions)
      .values({
        bundleId: bundle.id,
        pullTokenSha256: sha256Hex(token),
        pullTokenSealed: sealFor(ctx.db, token),
        pullBase: '',
        distributedBy: by,
      })
      .returning();
    const pullBase = `${base}${API}/pull/${d!.id}`;
    await tx.update(distributions).set({ pullBase }).where(eq(distributions.id, d!.id));
    await tx.insert(distributionTargetStatuses).values(
      chosen.map((t) => ({
        distributionId: d!.id,
        target: t.name,
        status: 'IN_PROGRESS',
        filesTotal: total,
      })),
    );
    await enqueueJob(tx, SEND_QUEUE, { distributionId: d!.id });
    await publish(
      tx,
      ...chosen.map((t) =>
        bundleEvent('distribution.distribute_started', bundle, {
          target: t.name,
          tracker_id: d!.id,
          distributed_by: by,
        }),
      ),
    );
    return { ...d!, pullBase };
  });
  return trackerOf(ctx, row, bundle);
}

export async function listTrackers(
  ctx: DistributionContext,
  principal: Principal | null,
  name: string,
  version: string,
): Promise<Distribution[]> {
  const bundle = await getBundleRow(ctx, principal, name, version);
  const rows = await ctx.db
    .select()
    .from(distributions)
    .where(eq(distributions.bundleId, bundle.id))
    .orderBy(desc(distributions.createdAt));
  return Promise.all(rows.map((r) => trackerOf(ctx, r, bundle)));
}

/** Failed targets of a tracker are told again. */
export async function retryTracker(
  ctx: DistributionContext,
  principal: Principal | null,
  name: string,
  version: string,
  trackerId: string,
): Promise<Distribution> {
  const bundle = await getBundleRow(ctx, principal, name, version);
  await requireBundle(ctx, principal, 'manage', name);
  const [row] = await ctx.db
    .select()
    .from(distributions)
    .where(and(eq(distributions.id, trackerId), eq(distributions.bundleId, bundle.id)));
  if (!row) throw new NotFoundError(`Distribution '${trackerId}' not found`);
  await ctx.db.transaction(async (tx) => {
    await tx
      .update(distributionTargetStatuses)
      .set({ status: 'IN_PROGRESS', reason: null, remoteId: null, announced: false, updatedAt: new Date() })
      .where(
        and(
          eq(distributionTargetStatuses.distributionId, row.id),
          eq(distributionTargetStatuses.status, 'FAILED'),
        ),
      );
    await enqueueJob(tx, SEND_QUEUE, { distributionId: row.id });
  });
  return trackerOf(ctx, row, bundle);
}

async function setStatus(
  ctx: DistributionContext,
  tx: Executor,
  s: Pick<StatusRow, 'distributionId' | 'target'>,
  set: Partial<StatusRow>,
): Promise<void> {
  await tx
    .update(distributionTargetStatuses)
    .set({ ...set, updatedAt: new Date(ctx.now()) })
    .where(
      and(
        eq(distributionTargetStatuses.distributionId, s.distributionId),
        eq(distributionTargetStatuses.target, s.target),
      ),
    );
}

async function finish(
  ctx: DistributionContext,
  s: StatusRow,
  status: 'COMPLETED' | 'FAILED',
  reason: string | null,
  extra: Partial<StatusRow> = {},
): Promise<void> {
  const [d] = await ctx.db.select().from(distributions).where(eq(distributions.id, s.distributionId));
  const [bundle] = d
    ? await ctx.db.select().from(releaseBundles).where(eq(releaseBundles.id, d.bundleId))
    : [];
  await ctx.db.transaction(async (tx) => {
    await setStatus(ctx, tx, s, { status, reason, announced: true, ...extra });
    if (bundle)
      await publish(
        tx,
        bundleEvent(
          status === 'COMPLETED' ? 'distribution.distribute_completed' : 'distribution.distribute_failed',
          bundle,
          {
            target: s.target,
            tracker_id: s.distributionId,
            ...(reason ? { reason } : {}),
          },
        ),
      );
  });
}

async function errorText(res: { text(): Promise<string>; status: number }): Promise<string> {
  const text = await res.text().catch(() => '');
  try {
    const doc = JSON.parse(text) as { errors?: { message?: string }[]; message?: string };
    return doc.errors?.[0]?.message ?? doc.message ?? `HTTP ${res.status}`;
  } catch {
    return text.slice(0, 300) || `HTTP ${res.status}`;
  }
}

/** Job `distribution.send`: tells each target of the distribution what to pull (retried with back-off). */
async function sendJob(ctx: DistributionContext, payload: { distributionId: string }, job: QueuedJobContext) {
  const [d] = await ctx.db.select().from(distributions).where(eq(distributions.id, payload.distributionId));
  if (!d) return;
  const [bundle] = await ctx.db.select().from(releaseBundles).where(eq(releaseBundles.id, d.bundleId));
  if (!bundle) return;
  const pending = await ctx.db
    .select()
    .from(distributionTargetStatuses)
    .where(
      and(
        eq(distributionTargetStatuses.distributionId, d.id),
        eq(distributionTargetStatuses.status, 'IN_PROGRESS'),
        sql`${distributionTargetStatuses.remoteId} is null`,
      ),
    );
  let retry: string | null = null;
  for (const s of pending) {
    const [target] = await ctx.db
      .select()
      .from(distributionTargets)
      .where(eq(distributionTargets.name, s.target));
    if (!target) {
      await finish(ctx, s, 'FAILED', `Distribution target '${s.target}' no longer exists`);
      continue;
    }
    const body: ReceiveRequest = {
      pull_base: d.pullBase,
      pull_token: openFor(ctx.db, d.pullTokenSealed),
      manifest: bundle.manifest,
      signature: bundle.signature,
      key_id: bundle.keyId,
      source_id: ctx.baseUrl ?? new URL(d.pullBase).origin,
    };
    await setStatus(ctx, ctx.db, s, { attempts: s.attempts + 1 });
    let res: Awaited<ReturnType<DistributionContext['outbound']['fetch']>>;
    try {
      res = await ctx.outbound.fetch(`${target.url}${API}/receive`, {
        method: 'POST',
        headers: {
          authorization: `Bearer ${openFor(ctx.db, target.tokenSealed)}`,
          'content-type': 'application/json',
        },
        body: JSON.stringify(body),
        signal: job.signal,
      });
    } catch (err) {
      retry = `Target ${s.target} could not be reached: ${(err as Error).message}`;
      await setStatus(ctx, ctx.db, s, { reason: retry });
      continue;
    }
    if (res.ok) {
      const received = (await res.json()) as Received;
      await setStatus(ctx, ctx.db, s, {
        remoteId: received.id,
        reason: null,
        filesDone: received.files_done,
        filesTotal: received.files_total,
      });
      continue;
    }
    const message = await errorText(res);
    if (res.status >= 500 || res.status === 429) {
      retry = `Target ${s.target} answered ${res.status}: ${message}`;
      await setStatus(ctx, ctx.db, s, { reason: retry });
      continue;
    }
    // The target refused (untrusted key, bad signature, an existing bundle, the token): no retry helps.
    await finish(ctx, s, 'FAILED', `Target ${s.target} refused the bundle (${res.status}): ${message}`);
  }
  if (retry) {
    if (job.attempt >= SEND_ATTEMPTS) {
      for (const s of pending) {
        const [now] = await ctx.db
          .select()
          .from(distributionTargetStatuses)
          .where(
            and(
              eq(distributionTargetStatuses.distributionId, s.distributionId),
              eq(distributionTargetStatuses.target, s.target),
            ),
          );
        if (now?.status === 'IN_PROGRESS' && !now.remoteId)
          await finish(ctx, now, 'FAILED', now.reason ?? retry);
      }
      return;
    }
    throw new Error(retry);
  }
}

/** Recurring `distribution.track`: asks each target that accepted a bundle how far it got. */
async function trackJob(ctx: DistributionContext, signal: AbortSignal): Promise<{ tracked: number }> {
  const open = await ctx.db
    .select()
    .from(distributionTargetStatuses)
    .where(
      and(
        eq(distributionTargetStatuses.status, 'IN_PROGRESS'),
        isNotNull(distributionTargetStatuses.remoteId),
      ),
    )
    .limit(100);
  for (const s of open) {
    if (signal.aborted) break;
    const [target] = await ctx.db
      .select()
      .from(distributionTargets)
      .where(eq(distributionTargets.name, s.target));
    if (!target) {
      await finish(ctx, s, 'FAILED', `Distribution target '${s.target}' no longer exists`);
      continue;
    }
    try {
      const res = await ctx.outbound.fetch(`${target.url}${API}/received/${s.remoteId}`, {
        headers: { authorization: `Bearer ${openFor(ctx.db, target.tokenSealed)}` },
        signal: AbortSignal.any([signal, AbortSignal.timeout(10_000)]),
      });
      if (!res.ok) {
        await setStatus(ctx, ctx.db, s, { reason: `Target answered ${res.status}: ${await errorText(res)}` });
        continue;
      }
      const r = (await res.json()) as Received;
      if (r.status === 'COMPLETED' || r.status === 'FAILED')
        await finish(ctx, s, r.status, r.reason, { filesDone: r.files_done, filesTotal: r.files_total });
      else
        await setStatus(ctx, ctx.db, s, {
          filesDone: r.files_done,
          filesTotal: r.files_total,
          reason: r.reason,
        });
    } catch (err) {
      // A target restarting is not a failure: the transfer resumes there; we ask again.
      await setStatus(ctx, ctx.db, s, {
        reason: `Target ${s.target} not reachable: ${(err as Error).message}`,
      });
    }
  }
  return { tracked: open.length };
}

/** `GET /lifecycle/api/v2/distribution/pull/{trackerId}/{sha256}`: a file of the bundle, for its targets only. */
export async function pullFile(
  ctx: DistributionContext,
  trackerId: string,
  sha256: string,
  token: string | undefined,
): Promise<{ stream: NodeJS.ReadableStream; size: number }> {
  if (!token || !/^[0-9a-f-]{36}$/.test(trackerId)) throw new UnauthorizedError();
  const [d] = await ctx.db.select().from(distributions).where(eq(distributions.id, trackerId));
  const given = Buffer.from(sha256Hex(token), 'hex');
  if (!d || !timingSafeEqual(given, Buffer.from(d.pullTokenSha256, 'hex'))) throw new UnauthorizedError();
  const files = await bundleFiles(ctx, d.bundleId);
  const file = files.find((f) => f.sha256 === sha256.toLowerCase());
  if (!file) throw new NotFoundError(`No file ${sha256} in this release bundle`);
  return { stream: await ctx.blobs.get(file.sha256), size: file.size };
}

// ------------------------------------------------------------------ target side

const toReceived = (r: ReceivedRow): Received => ({
  id: r.id,
  release_bundle_name: r.name,
  release_bundle_version: r.version,
  status: r.status as DistributionStatus,
  reason: r.reason,
  files_done: r.filesDone,
  files_total: r.filesTotal,
  created: r.createdAt.toISOString(),
  updated: r.updatedAt.toISOString(),
});

function manifestOf(text: string): BundleManifest {
  let doc: unknown;
  try {
    doc = JSON.parse(text);
  } catch {
    throw new InvalidError('manifest: not JSON');
  }
  const parsed = bundleManifestSchema.safeParse(doc);
  if (!parsed.success) throw new InvalidError(`manifest: ${issues(parsed.error)}`);
  checkNameVersion(parsed.data.name, parsed.data.version);
  for (const f of parsed.data.files)
    if (!/^[a-f0-9]{64}$/.test(f.sha256))
      throw new InvalidError(`manifest: bad sha256 for ${f.repoKey}/${f.path}`);
  return parsed.data;
}

/** The manifest's signature by a trusted key, or a clear refusal. */
async function checkSignature(ctx: DistributionContext, keyId: string, manifest: string, signature: string) {
  const publicKey = await trustedKeyById(ctx, keyId);
  if (!publicKey)
    throw new InvalidError(
      `The signing key ${keyId.toUpperCase()} is not a trusted key on this server (POST /api/security/keys/trusted)`,
    );
  if (!(await verifyDetached(publicKey, Buffer.from(manifest, 'utf8'), signature)))
    throw new InvalidError(
      'The manifest signature does not verify: the manifest was changed or signed by another key',
    );
}

/** `POST /lifecycle/api/v2/distribution/receive` (admins: the source's token): checks, then a job pulls. */
export async function receive(
  ctx: DistributionContext,
  principal: Principal,
  body: ReceiveRequest,
): Promise<Received> {
  const parsed = receiveRequestSchema.safeParse(body);
  if (!parsed.success) throw new InvalidError(issues(parsed.error));
  const input = parsed.data;
  await checkSignature(ctx, input.key_id, input.manifest, input.signature);
  const manifest = manifestOf(input.manifest);
  const manifestSha = sha256Hex(input.manifest);
  const local = await findBundle(ctx, manifest.name, manifest.version);
  if (local && local.manifestSha256 !== manifestSha)
    throw new ConflictError(`${DISTRIBUTION_MESSAGES.bundleExists}: ${manifest.name}/${manifest.version}`);
  const [current] = await ctx.db
    .select()
    .from(receivedBundles)
    .where(and(eq(receivedBundles.name, manifest.name), eq(receivedBundles.version, manifest.version)))
    .orderBy(desc(receivedBundles.createdAt))
    .limit(1);
  const total = new Set(manifest.files.map((f) => f.sha256)).size;
  if (current && current.manifestSha256 === manifestSha && current.status !== 'FAILED') {
    // Told again (a retry of the source's job): the same transfer, with the newest place to pull from.
    const [row] = await ctx.db
      .update(receivedBundles)
      .set({
        pullBase: input.pull_base,
        pullTokenSealed: sealFor(ctx.db, input.pull_token),
        updatedAt: new Date(ctx.now()),
      })
      .where(eq(receivedBundles.id, current.id))
      .returning();
    return toReceived(row!);
  }
  return ctx.db.transaction(async (tx) => {
    const [row] = await tx
      .insert(receivedBundles)
      .values({
        name: manifest.name,
        version: manifest.version,
        manifest: input.manifest,
        manifestSha256: manifestSha,
        signature: input.signature,
        keyId: input.key_id.toUpperCase(),
        pullBase: input.pull_base.replace(/\/+$/, ''),
        pullTokenSealed: sealFor(ctx.db, input.pull_token),
        sourceId: input.source_id ?? null,
        status: local ? 'COMPLETED' : 'IN_PROGRESS',
        filesDone: local ? total : 0,
        filesTotal: total,
        receivedBy: principal.name,
      })
      .returning();
    if (!local) await enqueueJob(tx, RECEIVE_QUEUE, { id: row!.id }, { dedupeKey: row!.id });
    return toReceived(row!);
  });
}

export async function getReceived(ctx: DistributionContext, id: string): Promise<Received> {
  if (!/^[0-9a-f-]{36}$/.test(id)) throw new NotFoundError(`Transfer '${id}' not found`);
  const [row] = await ctx.db.select().from(receivedBundles).where(eq(receivedBundles.id, id));
  if (!row) throw new NotFoundError(`Transfer '${id}' not found`);
  return toReceived(row);
}

export async function listReceived(ctx: DistributionContext): Promise<Received[]> {
  return (
    await ctx.db.select().from(receivedBundles).orderBy(desc(receivedBundles.createdAt)).limit(500)
  ).map(toReceived);
}

class Failure extends Error {}

/** Paces a stream to `rate` bytes per second (0: as fast as it comes), stopping when `signal` aborts. */
async function* paced(
  source: AsyncIterable<Uint8Array>,
  rate: number,
  signal: AbortSignal,
): AsyncGenerator<Uint8Array> {
  const start = Date.now();
  let sent = 0;
  for await (const chunk of source) {
    if (signal.aborted) throw new Error('stopped: the server is shutting down');
    if (rate > 0) {
      for (let i = 0; i < chunk.length; i += 16_384) {
        const part = chunk.subarray(i, i + 16_384);
        sent += part.length;
        const due = start + (sent / rate) * 1000 - Date.now();
        if (due > 0) await new Promise((r) => setTimeout(r, due));
        yield part;
      }
    } else yield chunk;
  }
}

/**
 * Job `distribution.receive`: pulls each file not yet pulled (a restart goes on where it stopped:
 * `pulled` lists the files already stored and verified), verifies every SHA-256 as it stores it and
 * the signature again, then makes the bundle and its files visible in one transaction.
 */
async function receiveJob(
  ctx: DistributionContext,
  payload: { id: string },
  job: QueuedJobContext,
): Promise<void> {
  const [row] = await ctx.db.select().from(receivedBundles).where(eq(receivedBundles.id, payload.id));
  if (row?.status !== 'IN_PROGRESS') return;
  const fail = async (reason: string) => {
    await ctx.db
      .update(receivedBundles)
      .set({ status: 'FAILED', reason, updatedAt: new Date(ctx.now()) })
      .where(eq(receivedBundles.id, row.id));
  };
  try {
    await checkSignature(ctx, row.keyId, row.manifest, row.signature);
    const manifest = manifestOf(row.manifest);
    for (const key of new Set(manifest.files.map((f) => f.repoKey))) {
      const repo = await findRepository(ctx.db, key);
      if (repo?.rclass !== 'local')
        throw new Failure(
          `Repository '${key}' does not exist on this server (a local repository of that key is needed)`,
        );
    }
    const pulled: Record<string, { sha1: string; md5: string }> = { ...row.pulled };
    const sizes = new Map(manifest.files.map((f) => [f.sha256, f.size]));
    const token = openFor(ctx.db, row.pullTokenSealed);
    for (const [sha, size] of sizes) {
      if (pulled[sha]) continue;
      if (job.signal.aborted) throw new Error('stopped: the server is shutting down');
      const res = await ctx.outbound.fetch(`${row.pullBase}/${sha}`, {
        headers: { [PULL_TOKEN_HEADER]: token },
        signal: job.signal,
      });
      if (!res.ok || !res.body) {
        const text = await errorText(res);
        if (res.status === 401 || res.status === 404)
          throw new Failure(`The source refused file ${sha} (${res.status}): ${text}`);
        throw new Error(`The source answered ${res.status} for file ${sha}: ${text}`);
      }
      const source = Readable.fromWeb(res.body as import('node:stream/web').ReadableStream<Uint8Array>);
      let info: { sha1: string; md5: string };
      try {
        // issue 21: held for a week (a pull resumes without these bytes); the bundle's files then hold them
        info = await ctx.blobs.put(
          paced(source, ctx.pullRateBytesPerSec, job.signal),
          { sha256: sha, size },
          { holdReason: 'bundle-pull', holdSecs: 7 * 24 * 3600 },
        );
      } catch (err) {
        source.destroy();
        const message = (err as Error).message;
        if (/checksum|sha256|size|mismatch/i.test(message))
          throw new Error(`File ${sha} did not verify (${message}); it will be pulled again`);
        throw err;
      }
      pulled[sha] = { sha1: info.sha1, md5: info.md5 };
      await ctx.db
        .update(receivedBundles)
        .set({
          pulled: sql`${receivedBundles.pulled} || ${JSON.stringify({ [sha]: pulled[sha] })}::jsonb`,
          filesDone: Object.keys(pulled).length,
          updatedAt: new Date(ctx.now()),
        })
        .where(eq(receivedBundles.id, row.id));
    }
    const files: ResolvedFile[] = manifest.files.map((f) => ({
      repoKey: f.repoKey,
      path: f.path,
      sha256: f.sha256,
      size: f.size,
      sha1: pulled[f.sha256]!.sha1,
      md5: pulled[f.sha256]!.md5,
    }));
    for (const f of files) {
      const stat = await ctx.blobs.stat(f.sha256);
      if (!stat || stat.size !== f.size) {
        await ctx.db
          .update(receivedBundles)
          .set({
            pulled: sql`${receivedBundles.pulled} - ${f.sha256}`,
            filesDone: Object.keys(pulled).length - 1,
          })
          .where(eq(receivedBundles.id, row.id));
        throw new Error(`File ${f.sha256} is missing from the blob store; it will be pulled again`);
      }
    }
    const placements = files.map((f) => ({
      file: { ...f, bundleId: '' },
      repoKey: f.repoKey,
    }));
    const conflict = await checksumConflict(ctx, placements);
    if (conflict) throw new Failure(conflict);
    const principal: Principal = { id: 'distribution', name: row.receivedBy, admin: true };
    await ctx.db.transaction(async (tx) => {
      const [again] = await tx
        .select({ status: receivedBundles.status })
        .from(receivedBundles)
        .where(eq(receivedBundles.id, row.id))
        .for('update');
      if (again?.status !== 'IN_PROGRESS') return;
      await storeBundle(tx, {
        name: manifest.name,
        version: manifest.version,
        origin: 'received',
        sourceType: manifest.source_type,
        manifest: row.manifest,
        signature: { keyName: null, keyId: row.keyId, fingerprint: '', armored: row.signature },
        files,
        by: manifest.created_by,
        events: (b) => [
          bundleEvent('artifactory_release_bundle.received', b, { source: row.sourceId }),
          bundleEvent('destination.received', b, { source: row.sourceId }),
        ],
      });
      await linkInto(ctx.repositories, tx, principal, placements, {
        'release-bundle.name': [manifest.name],
        'release-bundle.version': [manifest.version],
      });
      await tx
        .update(receivedBundles)
        .set({ status: 'COMPLETED', reason: null, filesDone: sizes.size, updatedAt: new Date(ctx.now()) })
        .where(eq(receivedBundles.id, row.id));
    });
  } catch (err) {
    if (err instanceof Failure || err instanceof InvalidError || err instanceof ConflictError) {
      await fail(err.message);
      return;
    }
    if (job.attempt >= RECEIVE_ATTEMPTS) {
      await fail(`Gave up after ${job.attempt} attempts: ${(err as Error).message}`);
      return;
    }
    await ctx.db
      .update(receivedBundles)
      .set({ reason: (err as Error).message, updatedAt: new Date(ctx.now()) })
      .where(eq(receivedBundles.id, row.id));
    throw err;
  }
}

/** The queues and the tracking job, registered at boot. */
export function registerDistributionJobs(ctx: DistributionContext): void {
  ctx.jobs.queue<{ distributionId: string }>({
    name: SEND_QUEUE,
    maxAttempts: SEND_ATTEMPTS,
    backoffMs: 1_000,
    handler: (payload, job) => sendJob(ctx, payload, job),
  });
  ctx.jobs.queue<{ id: string }>({
    name: RECEIVE_QUEUE,
    maxAttempts: RECEIVE_ATTEMPTS,
    backoffMs: 1_000,
    concurrency: 2,
    // A node killed mid-transfer hands the job on quickly (the lease is renewed while the job runs).
    leaseMs: 15_000,
    handler: (payload, job) => receiveJob(ctx, payload, job),
  });
  ctx.jobs.recurring({
    name: TRACK_JOB,
    scope: 'cluster',
    // Every 5 s: a target's progress shows within seconds, and an idle server (no distribution open) spends
    // one lease write and one indexed query per 5 s on it rather than per second.
    intervalMs: 5_000,
    leaseMs: 60_000,
    run: ({ signal }) => trackJob(ctx, signal),
  });
}

export type { BundleRow };
