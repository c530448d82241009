import { createHash } from 'node:crypto';
import {
  type BundleManifest,
  type BundleSourceType,
  bundleNameSchema,
  bundleVersionSchema,
  DISTRIBUTION_MESSAGES,
  type PermissionAction,
  RELEASE_BUNDLES_REPO_KEY,
  type ReleaseBundleByChecksum,
  type ReleaseBundleCreate,
  type ReleaseBundleCreated,
  type ReleaseBundleNames,
  type ReleaseBundleVersion,
  type ReleaseBundleVersionSummary,
  releaseBundleCreateSchema,
} from '@granary/contracts';
import { and, asc, desc, eq, inArray, or } from 'drizzle-orm';
import {
  ConflictError,
  ForbiddenError,
  InvalidError,
  NotFoundError,
  UnauthorizedError,
} from '../../platform/errors.ts';
import type { DomainEvent, Executor } from '../../platform/events/index.ts';
import { publish } from '../../platform/events/index.ts';
import type { Principal } from '../../platform/http/access-control.ts';
import { antMatch } from '../access/ant-pattern.ts';
import { findArtifact, findRepository, searchStoredFiles } from '../repositories/repositories.api.ts';
import { canonicalJson, type DistributionContext, uniqueViolation } from './context.ts';
import { releaseBundleFiles, releaseBundlePromotions, releaseBundles } from './distribution.schema.ts';
import { signWith } from './keys.ts';

export type BundleRow = typeof releaseBundles.$inferSelect;
export type BundleFileRow = typeof releaseBundleFiles.$inferSelect;
export interface ResolvedFile {
  repoKey: string;
  path: string;
  sha256: string;
  sha1: string;
  md5: string;
  size: number;
}

const MAX_FILES = 10_000;

function issues(error: { issues: { path: PropertyKey[]; message: string }[] }): string {
  return error.issues.map((i) => `${i.path.join('.') || 'body'}: ${i.message}`).join('; ');
}

/** Release-bundle permission targets: the repository `release-bundles` (or this module's `release-bundles-v2`), the bundle name as the path. */
export async function mayBundle(
  ctx: DistributionContext,
  principal: Principal | null,
  action: PermissionAction,
  name: string,
): Promise<boolean> {
  for (const key of [RELEASE_BUNDLES_REPO_KEY, 'release-bundles'])
    if (
      await ctx.authorizer.can(principal, action, { kind: 'releaseBundle', key, rclass: 'local', path: name })
    )
      return true;
  return false;
}

export async function requireBundle(
  ctx: DistributionContext,
  principal: Principal | null,
  action: PermissionAction,
  name: string,
): Promise<void> {
  if (await mayBundle(ctx, principal, action, name)) return;
  if (!principal) throw new UnauthorizedError();
  throw new ForbiddenError(`You do not have ${action} permission on release bundle '${name}'`);
}

export function checkNameVersion(name: string, version: string): void {
  const n = bundleNameSchema.safeParse(name);
  if (!n.success) throw new InvalidError(`release_bundle_name: ${n.error.issues[0]!.message}`);
  const v = bundleVersionSchema.safeParse(version);
  if (!v.success) throw new InvalidError(`release_bundle_version: ${v.error.issues[0]!.message}`);
}

export async function findBundle(ctx: Pick<DistributionContext, 'db'>, name: string, version: string) {
  const [row] = await ctx.db
    .select()
    .from(releaseBundles)
    .where(and(eq(releaseBundles.name, name), eq(releaseBundles.version, version)));
  return row;
}

export async function getBundleRow(
  ctx: DistributionContext,
  principal: Principal | null,
  name: string,
  version: string,
): Promise<BundleRow> {
  checkNameVersion(name, version);
  const row = await findBundle(ctx, name, version);
  // Unknown and unreadable answer alike, so a name's existence does not leak.
  if (!row || !(await mayBundle(ctx, principal, 'read', name))) {
    if (!principal) throw new UnauthorizedError();
    throw new NotFoundError(`Release bundle '${name}/${version}' not found`);
  }
  return row;
}

export async function bundleFiles(
  ctx: Pick<DistributionContext, 'db'>,
  bundleId: string,
): Promise<BundleFileRow[]> {
  return ctx.db
    .select()
    .from(releaseBundleFiles)
    .where(eq(releaseBundleFiles.bundleId, bundleId))
    .orderBy(asc(releaseBundleFiles.repoKey), asc(releaseBundleFiles.path));
}

/** A stored file the caller may read, by `repoKey` and path. */
async function readableFile(
  ctx: DistributionContext,
  principal: Principal | null,
  repoKey: string,
  path: string,
): Promise<ResolvedFile> {
  const repo = await findRepository(ctx.db, repoKey);
  const clean = path.replace(/^\/+/, '');
  const missing = () => new InvalidError(`Artifact '${repoKey}/${clean}' not found`);
  if (!repo || repo.rclass === 'virtual') throw missing();
  if (!(await ctx.authorizer.can(principal, 'read', { key: repo.key, rclass: repo.rclass, path: clean })))
    throw missing();
  const row = await findArtifact(ctx.db, repo.id, clean);
  if (!row) throw missing();
  return {
    repoKey: repo.key,
    path: row.path,
    sha256: row.sha256,
    sha1: row.sha1,
    md5: row.md5,
    size: row.size,
  };
}

/** `items.find({"repo":"x","path":{"$match":"a/*"},"name":{"$match":"*.tgz"}})`, or `{repository_key, path_pattern}`. */
function parseSearch(aql: string | { repository_key: string; path_pattern: string }): {
  repo: string;
  pattern: string;
} {
  if (typeof aql !== 'string') return { repo: aql.repository_key, pattern: aql.path_pattern };
  const m = /^\s*items\.find\(\s*(\{[\s\S]*\})\s*\)\s*$/.exec(aql);
  let doc: Record<string, unknown>;
  try {
    doc = JSON.parse(m?.[1] ?? '') as Record<string, unknown>;
  } catch {
    throw new InvalidError(
      'source.aql: expected items.find({"repo": "…", "path": {"$match": "…"}, "name": {"$match": "…"}})',
    );
  }
  const value = (v: unknown) =>
    typeof v === 'string'
      ? v
      : v && typeof v === 'object'
        ? ((v as Record<string, unknown>).$match ?? (v as Record<string, unknown>).$eq)
        : undefined;
  const repo = value(doc.repo);
  if (typeof repo !== 'string' || repo === '') throw new InvalidError('source.aql: "repo" is required');
  const path = value(doc.path);
  const name = value(doc.name);
  const folder = typeof path === 'string' && path !== '' && path !== '.' ? path : '**';
  return { repo, pattern: `${folder}/${typeof name === 'string' && name !== '' ? name : '*'}` };
}

async function resolveSource(
  ctx: DistributionContext,
  principal: Principal | null,
  type: BundleSourceType,
  source: ReturnType<typeof releaseBundleCreateSchema.parse>['source'],
): Promise<ResolvedFile[]> {
  const out: ResolvedFile[] = [];
  switch (type) {
    case 'artifacts': {
      const list = source.artifacts ?? [];
      if (list.length === 0) throw new InvalidError('source.artifacts: at least one artifact is required');
      for (const a of list) {
        const slash = a.path.replace(/^\/+/, '').indexOf('/');
        if (slash <= 0) throw new InvalidError(`source.artifacts: '${a.path}' is not repository/path`);
        const clean = a.path.replace(/^\/+/, '');
        const file = await readableFile(ctx, principal, clean.slice(0, slash), clean.slice(slash + 1));
        if (a.sha256 && a.sha256.toLowerCase() !== file.sha256)
          throw new InvalidError(`source.artifacts: '${a.path}' has sha256 ${file.sha256}, not ${a.sha256}`);
        out.push(file);
      }
      break;
    }
    case 'aql': {
      if (!source.aql) throw new InvalidError('source.aql: a search is required');
      const { repo: repoKey, pattern } = parseSearch(source.aql);
      const repo = await findRepository(ctx.db, repoKey);
      if (
        !repo ||
        !(await ctx.authorizer.can(principal, 'read', { key: repo.key, rclass: repo.rclass, path: '' }))
      )
        throw new InvalidError(`source.aql: repository '${repoKey}' not found`);
      const prefix = pattern.split(/[*?]/)[0]!.replace(/[\\%_]/g, (c) => `\\${c}`);
      const hits = await searchStoredFiles(
        ctx.db,
        [repo.id],
        { by: 'path', like: `${prefix}%` },
        MAX_FILES + 1,
      );
      for (const hit of hits)
        if (antMatch(pattern, hit.path) || antMatch(pattern.replace(/^\*\*\//, ''), hit.path))
          out.push(await readableFile(ctx, principal, repo.key, hit.path));
      break;
    }
    case 'release_bundles': {
      const list = source.release_bundles ?? [];
      if (list.length === 0)
        throw new InvalidError('source.release_bundles: at least one release bundle is required');
      for (const b of list) {
        const row = await getBundleRow(ctx, principal, b.release_bundle_name, b.release_bundle_version);
        for (const f of await bundleFiles(ctx, row.id))
          out.push({
            repoKey: f.repoKey,
            path: f.path,
            sha256: f.sha256,
            sha1: f.sha1,
            md5: f.md5,
            size: f.size,
          });
      }
      break;
    }
    case 'builds': {
      const list = source.builds ?? [];
      if (list.length === 0) throw new InvalidError('source.builds: at least one build is required');
      if (!ctx.buildFiles) throw new InvalidError('source.builds: builds are not available on this server');
      for (const b of list) {
        const files = await ctx.buildFiles(b.build_name, b.build_number);
        if (files.length === 0)
          throw new InvalidError(
            `source.builds: build '${b.build_name}/${b.build_number}' not found or has no artifacts`,
          );
        for (const f of files) out.push(await readableFile(ctx, principal, f.repoKey, f.path));
      }
      break;
    }
    case 'packages': {
      const list = source.packages ?? [];
      if (list.length === 0) throw new InvalidError('source.packages: at least one package is required');
      for (const p of list) {
        const repo = await findRepository(ctx.db, p.repository_key);
        if (
          !repo ||
          !(await ctx.authorizer.can(principal, 'read', { key: repo.key, rclass: repo.rclass, path: '' }))
        )
          throw new InvalidError(`source.packages: repository '${p.repository_key}' not found`);
        // A version's files: paths naming both the package and the version (npm `name/-/name-1.0.0.tgz`,
        // Maven `g/a/1.0/a-1.0.jar`, PyPI `name/1.0/…`, generic folders).
        const name = p.package_name
          .replace(/^@[^/]+\//, '')
          .split(':')
          .pop()!;
        const hits = await searchStoredFiles(
          ctx.db,
          [repo.id],
          { by: 'path', like: `%${name.replace(/[\\%_]/g, (c) => `\\${c}`)}%` },
          MAX_FILES + 1,
        );
        const found = hits.filter(
          (h) => !h.path.startsWith('.') && h.path.split('/').some((seg) => seg.includes(p.package_version)),
        );
        if (found.length === 0)
          throw new InvalidError(
            `source.packages: ${p.package_name}@${p.package_version} not found in '${repo.key}'`,
          );
        for (const h of found) out.push(await readableFile(ctx, principal, repo.key, h.path));
      }
      break;
    }
  }
  const unique = new Map<string, ResolvedFile>();
  for (const f of out) unique.set(`${f.repoKey}\u0000${f.path}`, f);
  const files = [...unique.values()].sort((a, b) =>
    a.repoKey === b.repoKey ? (a.path < b.path ? -1 : 1) : a.repoKey < b.repoKey ? -1 : 1,
  );
  if (files.length === 0) throw new InvalidError(DISTRIBUTION_MESSAGES.emptyBundle);
  if (files.length > MAX_FILES) throw new InvalidError(`A release bundle holds at most ${MAX_FILES} files`);
  return files;
}

export function manifestBytes(manifest: BundleManifest): Buffer {
  return Buffer.from(canonicalJson(manifest), 'utf8');
}

export const sha256Hex = (data: Buffer | string) => createHash('sha256').update(data).digest('hex');

export function bundleEvent(
  type: string,
  row: Pick<BundleRow, 'name' | 'version'>,
  extra: Record<string, unknown> = {},
): DomainEvent {
  return {
    type,
    payload: {
      release_bundle_name: row.name,
      release_bundle_version: row.version,
      repository_key: RELEASE_BUNDLES_REPO_KEY,
      ...extra,
    },
  };
}

/** `POST /lifecycle/api/v2/release_bundle`: resolves the files, writes the signed manifest, one transaction. */
export async function createBundle(
  ctx: DistributionContext,
  principal: Principal | null,
  signingKeyName: string | undefined,
  body: ReleaseBundleCreate,
): Promise<ReleaseBundleCreated> {
  const parsed = releaseBundleCreateSchema.safeParse(body);
  if (!parsed.success) throw new InvalidError(issues(parsed.error));
  const input = parsed.data;
  await requireBundle(ctx, principal, 'write', input.release_bundle_name);
  if (!signingKeyName) throw new InvalidError(DISTRIBUTION_MESSAGES.noSigningKey);
  if (await findBundle(ctx, input.release_bundle_name, input.release_bundle_version))
    throw new ConflictError(
      `${DISTRIBUTION_MESSAGES.bundleExists}: ${input.release_bundle_name}/${input.release_bundle_version}`,
    );
  const files = await resolveSource(ctx, principal, input.source_type, input.source);
  const by = principal?.name ?? 'anonymous';
  const created = new Date(ctx.now());
  const manifest: BundleManifest = {
    schema: 'granary.release-bundle/v1',
    name: input.release_bundle_name,
    version: input.release_bundle_version,
    created: created.toISOString(),
    created_by: by,
    source_type: input.source_type,
    files: files.map((f) => ({ repoKey: f.repoKey, path: f.path, sha256: f.sha256, size: f.size })),
  };
  const bytes = manifestBytes(manifest);
  const signature = await signWith(ctx, signingKeyName, bytes).catch((err: unknown) => {
    if (err instanceof NotFoundError)
      throw new InvalidError(`${DISTRIBUTION_MESSAGES.unknownSigningKey} '${signingKeyName}'`);
    throw err;
  });
  try {
    await storeBundle(ctx.db, {
      name: manifest.name,
      version: manifest.version,
      origin: 'local',
      sourceType: input.source_type,
      manifest: bytes.toString('utf8'),
      signature,
      files,
      by,
      createdAt: created,
      events: (row) => [
        bundleEvent('release_bundle.created', row, { created_by: by, source_type: input.source_type }),
        bundleEvent('release_bundle.signed', row, {
          key_id: signature.keyId,
          signing_key_name: signature.keyName,
        }),
      ],
    });
  } catch (err) {
    if (uniqueViolation(err))
      throw new ConflictError(`${DISTRIBUTION_MESSAGES.bundleExists}: ${manifest.name}/${manifest.version}`);
    throw err;
  }
  return {
    repository_key: RELEASE_BUNDLES_REPO_KEY,
    release_bundle_name: manifest.name,
    release_bundle_version: manifest.version,
    created: created.toISOString(),
  };
}

/** Inserts a bundle and its files (in `db`, which may be a transaction), with its events. */
export async function storeBundle(
  db: Executor & { transaction?: unknown },
  input: {
    name: string;
    version: string;
    origin: 'local' | 'received';
    sourceType: string;
    manifest: string;
    signature: { keyName: string | null; keyId: string; fingerprint: string; armored: string };
    files: ResolvedFile[];
    by: string;
    createdAt?: Date;
    events: (row: BundleRow) => DomainEvent[];
  },
): Promise<BundleRow> {
  const write = async (tx: Executor) => {
    const [row] = await tx
      .insert(releaseBundles)
      .values({
        name: input.name,
        version: input.version,
        origin: input.origin,
        sourceType: input.sourceType,
        manifest: input.manifest,
        manifestSha256: sha256Hex(input.manifest),
        signature: input.signature.armored,
        keyName: input.signature.keyName,
        keyId: input.signature.keyId,
        fingerprint: input.signature.fingerprint,
        fileCount: input.files.length,
        totalSize: input.files.reduce((n, f) => n + f.size, 0),
        createdBy: input.by,
        ...(input.createdAt ? { createdAt: input.createdAt } : {}),
      })
      .returning();
    for (let i = 0; i < input.files.length; i += 500)
      await tx.insert(releaseBundleFiles).values(
        input.files.slice(i, i + 500).map((f) => ({
          bundleId: row!.id,
          repoKey: f.repoKey,
          path: f.path,
          sha256: f.sha256,
          sha1: f.sha1,
          md5: f.md5,
          size: f.size,
        })),
      );
    await publish(tx, ...input.events(row!));
    return row!;
  };
  const withTx = db as { transaction?: <T>(fn: (tx: Executor) => Promise<T>) => Promise<T> };
  return withTx.transaction ? withTx.transaction(write) : write(db);
}

async function environmentsOf(ctx: DistributionContext, bundleIds: string[]): Promise<Map<string, string[]>> {
  const out = new Map<string, string[]>();
  if (bundleIds.length === 0) return out;
  const rows = await ctx.db
    .select({ bundleId: releaseBundlePromotions.bundleId, environment: releaseBundlePromotions.environment })
    .from(releaseBundlePromotions)
    .where(
      and(
        inArray(releaseBundlePromotions.bundleId, bundleIds),
        eq(releaseBundlePromotions.status, 'COMPLETED'),
      ),
    )
    .orderBy(asc(releaseBundlePromotions.createdAt));
  for (const r of rows) {
    const list = out.get(r.bundleId) ?? [];
    if (!list.includes(r.environment)) list.push(r.environment);
    out.set(r.bundleId, list);
  }
  return out;
}

function summaryOf(row: BundleRow, environments: string[]): ReleaseBundleVersionSummary {
  return {
    status: row.status as ReleaseBundleVersionSummary['status'],
    repository_key: RELEASE_BUNDLES_REPO_KEY,
    release_bundle_name: row.name,
    release_bundle_version: row.version,
    created_by: row.createdBy,
    created: row.createdAt.toISOString(),
    release_bundle_sha256: row.manifestSha256,
    source: row.origin as 'local' | 'received',
    file_count: row.fileCount,
    total_size: row.totalSize,
    environments,
  };
}

export async function listBundleNames(
  ctx: DistributionContext,
  principal: Principal | null,
): Promise<ReleaseBundleNames> {
  const rows = await ctx.db.select().from(releaseBundles).orderBy(desc(releaseBundles.createdAt));
  const byName = new Map<string, BundleRow[]>();
  for (const r of rows) byName.set(r.name, [...(byName.get(r.name) ?? []), r]);
  const out: ReleaseBundleNames['release_bundles'] = [];
  for (const [name, versions] of byName) {
    if (!(await mayBundle(ctx, principal, 'read', name))) continue;
    out.push({
      release_bundle_name: name,
      repository_key: RELEASE_BUNDLES_REPO_KEY,
      release_bundle_version_latest: versions[0]!.version,
      last_version_created_millis: versions[0]!.createdAt.getTime(),
      versions: versions.length,
    });
  }
  out.sort((a, b) => a.release_bundle_name.localeCompare(b.release_bundle_name));
  return { release_bundles: out, total: out.length };
}

export async function listBundleVersions(
  ctx: DistributionContext,
  principal: Principal | null,
  name: string,
) {
  const n = bundleNameSchema.safeParse(name);
  if (!n.success) throw new InvalidError(`release_bundle_name: ${n.error.issues[0]!.message}`);
  if (!(await mayBundle(ctx, principal, 'read', name))) {
    if (!principal) throw new UnauthorizedError();
    throw new NotFoundError(`Release bundle '${name}' not found`);
  }
  const rows = await ctx.db
    .select()
    .from(releaseBundles)
    .where(eq(releaseBundles.name, name))
    .orderBy(desc(releaseBundles.createdAt));
  if (rows.length === 0) throw new NotFoundError(`Release bundle '${name}' not found`);
  const envs = await environmentsOf(
    ctx,
    rows.map((r) => r.id),
  );
  return { release_bundles: rows.map((r) => summaryOf(r, envs.get(r.id) ?? [])), total: rows.length };
}

export async function bundleDetails(
  ctx: DistributionContext,
  principal: Principal | null,
  name: string,
  version: string,
): Promise<ReleaseBundleVersion> {
  const row = await getBundleRow(ctx, principal, name, version);
  const files = await bundleFiles(ctx, row.id);
  const envs = await environmentsOf(ctx, [row.id]);
  return {
    ...summaryOf(row, envs.get(row.id) ?? []),
    source_type: row.sourceType as BundleSourceType,
    files: files.map((f) => ({ repoKey: f.repoKey, path: f.path, sha256: f.sha256, size: f.size })),
    signature: {
      key_name: row.keyName,
      key_id: row.keyId,
      fingerprint: row.fingerprint,
      armored: row.signature,
    },
  };
}

export async function deleteBundle(
  ctx: DistributionContext,
  principal: Principal | null,
  name: string,
  version: string,
): Promise<void> {
  const row = await getBundleRow(ctx, principal, name, version);
  await requireBundle(ctx, principal, 'delete', name);
  const by = principal?.name ?? 'anonymous';
  await ctx.db.transaction(async (tx) => {
    await tx.delete(releaseBundles).where(eq(releaseBundles.id, row.id));
    await publish(
      tx,
      ...(row.origin === 'received'
        ? [
            bundleEvent('artifactory_release_bundle.delete_completed', row, { deleted_by: by }),
            bundleEvent('destination.delete_completed', row, { deleted_by: by }),
          ]
        : [bundleEvent('release_bundle.deleted', row, { deleted_by: by })]),
    );
  });
}

/** spec 001 §4 `GET /distribution/api/ui/release_bundle/checksum/{checksum}?num_of_rows=N`. */
export async function bundlesByChecksum(
  ctx: DistributionContext,
  principal: Principal | null,
  checksum: string,
  rows: number,
): Promise<ReleaseBundleByChecksum> {
  const value = checksum.toLowerCase();
  if (!/^[a-f0-9]{32,64}$/.test(value)) throw new InvalidError('checksum: a SHA-256, SHA-1 or MD5 in hex');
  const found = await ctx.db
    .select({
      name: releaseBundles.name,
      version: releaseBundles.version,
      created: releaseBundles.createdAt,
      repoKey: releaseBundleFiles.repoKey,
      path: releaseBundleFiles.path,
    })
    .from(releaseBundleFiles)
    .innerJoin(releaseBundles, eq(releaseBundles.id, releaseBundleFiles.bundleId))
    .where(
      or(
        eq(releaseBundleFiles.sha256, value),
        eq(releaseBundleFiles.sha1, value),
        eq(releaseBundleFiles.md5, value),
      ),
    )
    .orderBy(desc(releaseBundles.createdAt), asc(releaseBundleFiles.path))
    .limit(Math.min(Math.max(rows, 1), 1000) * 4);
  const out: ReleaseBundleByChecksum['release_bundles'] = [];
  for (const f of found) {
    if (out.length >= rows) break;
    if (!(await mayBundle(ctx, principal, 'read', f.name))) continue;
    out.push({
      release_bundle_name: f.name,
      release_bundle_version: f.version,
      repoKey: f.repoKey,
      path: f.path,
      created: f.created.toISOString(),
    });
  }
  return { release_bundles: out, total: out.length };
}
