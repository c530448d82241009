import { createHash } from 'node:crypto';
import semver from 'semver';
import { readAtMost } from '../../platform/archives/bounded-archive.ts';
import { UpstreamError } from '../../platform/errors.ts';
import type { FormatFile, RepositoryHandle } from '../sdk/format.ts';
import { MAX_ARCHIVE_BYTES, readSourceArchive } from './archive.ts';
import {
  archivePath,
  isVersion,
  MANIFEST,
  metadataPath,
  type PackageRef,
  packageFolder,
  packageId,
  releaseFolder,
} from './names.ts';

/**
 * Where a repository's releases come from, by class: a local repository's stored files; a remote's
 * upstream registry (SE-0292 calls with its `Accept` headers; the source archive checked against the
 * upstream's checksum and cached); a virtual's members, local first.
 */

/** What `metadata.json` keeps of a release (the release metadata answer is built from it). */
export interface ReleaseRecord {
  id: string;
  version: string;
  /** sha256 hex of the source archive */
  checksum: string;
  metadata: Record<string, unknown>;
  publishedAt: string;
}

export const JSON_TYPE = 'application/vnd.swift.registry.v1+json';
const DOC_BYTES = 4 * 1024 * 1024;

async function readJson(file: FormatFile | null): Promise<Record<string, unknown> | null> {
  if (!file) return null;
  try {
    const doc = JSON.parse(
      (await readAtMost(await file.open(), DOC_BYTES, file.path)).toString('utf8'),
    ) as unknown;
    return doc && typeof doc === 'object' ? (doc as Record<string, unknown>) : null;
  } catch {
    return null;
  }
}

async function upstreamJson(h: RepositoryHandle, path: string): Promise<Record<string, unknown> | null> {
  if (h.repository.remote?.offline) return null;
  const res = await h.upstream(path, { headers: { accept: JSON_TYPE }, maxBytes: DOC_BYTES });
  if (res.status === 404 || res.status === 410) return null;
  if (res.status !== 200)
    throw new UpstreamError(`The upstream of '${h.repository.key}' answered ${res.status} for ${path}`);
  try {
    const doc = JSON.parse(res.body.toString('utf8')) as unknown;
    if (doc && typeof doc === 'object') return doc as Record<string, unknown>;
  } catch {
    // below
  }
  throw new UpstreamError(
    `The upstream of '${h.repository.key}' answered ${path} with something other than JSON`,
  );
}

const upstreamPath = (p: PackageRef, rest = '') =>
  `${encodeURIComponent(p.scope)}/${encodeURIComponent(p.name)}${rest}`;

/** The versions a repository (not a virtual one) has of a package, or null when it has none. */
export async function releasesOf(h: RepositoryHandle, p: PackageRef): Promise<string[] | null> {
  if (h.repository.rclass === 'remote') {
    const doc = await upstreamJson(h, upstreamPath(p));
    const releases = doc?.releases;
    if (!releases || typeof releases !== 'object') return null;
    return Object.entries(releases as Record<string, { problem?: unknown }>)
      .filter(([v, r]) => isVersion(v) && !r?.problem)
      .map(([v]) => v);
  }
  const versions: string[] = [];
  // a release whose archive was deleted (the tree browser, a DELETE) is gone
  for (const e of await h.list(packageFolder(p)))
    if (e.folder && isVersion(e.name) && (await h.stat(archivePath(p, e.name)))) versions.push(e.name);
  return versions.length ? versions : null;
}

/** A release's record, or null. */
export async function recordOf(
  h: RepositoryHandle,
  p: PackageRef,
  version: string,
): Promise<ReleaseRecord | null> {
  if (h.repository.rclass !== 'remote') {
    const doc = await readJson(await h.stat(metadataPath(p, version)));
    return doc as ReleaseRecord | null;
  }
  const doc = await upstreamJson(h, upstreamPath(p, `/${encodeURIComponent(version)}`));
  if (!doc) return null;
  const resources = Array.isArray(doc.resources) ? (doc.resources as Record<string, unknown>[]) : [];
  const source = resources.find((r) => r?.name === 'source-archive');
  if (typeof source?.checksum !== 'string' || !/^[a-f0-9]{64}$/.test(source.checksum))
    throw new UpstreamError(
      `The upstream of '${h.repository.key}' names no source archive checksum for ${packageId(p)} ${version}`,
    );
  return {
    id: typeof doc.id === 'string' ? doc.id : packageId(p),
    version,
    checksum: source.checksum,
    metadata:
      doc.metadata && typeof doc.metadata === 'object' ? (doc.metadata as Record<string, unknown>) : {},
    publishedAt: typeof doc.publishedAt === 'string' ? doc.publishedAt : new Date(0).toISOString(),
  };
}

/** A release's manifests by file name (`Package.swift`, `Package@swift-5.7.swift`). */
export async function manifestsOf(
  h: RepositoryHandle,
  p: PackageRef,
  version: string,
): Promise<Map<string, FormatFile | (() => Promise<Buffer>)>> {
  const out = new Map<string, FormatFile | (() => Promise<Buffer>)>();
  if (h.repository.rclass !== 'remote') {
    for (const e of await h.list(releaseFolder(p, version))) {
      if (e.folder || !MANIFEST.test(e.name)) continue;
      const file = await h.stat(`${releaseFolder(p, version)}/${e.name}`);
      if (file) out.set(e.name, file);
    }
    return out;
  }
  const archive = await archiveOf(h, p, version);
  if (!archive) return out;
  const bytes = await readAtMost(await archive.open(), MAX_ARCHIVE_BYTES, archive.path);
  for (const [name, content] of (await readSourceArchive(bytes)).manifests)
    out.set(name, async () => content);
  return out;
}

/** A release's source archive: stored, or (a remote) fetched from the upstream, checked and cached. */
export async function archiveOf(
  h: RepositoryHandle,
  p: PackageRef,
  version: string,
): Promise<FormatFile | null> {
  const stored = await h.stat(archivePath(p, version));
  if (stored || h.repository.rclass !== 'remote' || h.repository.remote?.offline) return stored;
  const record = await recordOf(h, p, version);
  if (!record) return null;
  const res = await h.upstream(upstreamPath(p, `/${encodeURIComponent(version)}.zip`), {
    headers: { accept: 'application/vnd.swift.registry.v1+zip' },
    maxBytes: MAX_ARCHIVE_BYTES,
  });
  if (res.status === 404 || res.status === 410) return null;
  if (res.status !== 200)
    throw new UpstreamError(
      `The upstream of '${h.repository.key}' answered ${res.status} for ${packageId(p)} ${version}.zip`,
    );
  if (createHash('sha256').update(res.body).digest('hex') !== record.checksum)
    throw new UpstreamError(
      `The upstream of '${h.repository.key}' sent ${packageId(p)} ${version}.zip with another checksum than its release metadata`,
    );
  try {
    await readSourceArchive(res.body);
  } catch (err) {
    throw new UpstreamError(
      `The upstream of '${h.repository.key}' sent a source archive that is refused: ${(err as Error).message}`,
    );
  }
  return h.cache(archivePath(p, version), res.body, {
    expected: { sha256: record.checksum },
    metadata: { name: record.id, version, leadFile: true },
  });
}

/** Members of a virtual to ask about a package: local first; guarded remotes left out when a local holds it. */
export async function membersFor(ctx: RepositoryHandle, p: PackageRef): Promise<RepositoryHandle[]> {
  const members = (await ctx.members()).filter(
    (m) => m.repository.packageType === ctx.repository.packageType,
  );
  const locals = members.filter((m) => m.repository.rclass === 'local');
  let held = false;
  for (const m of locals) if ((await m.list(packageFolder(p))).length) held = true;
  const remotes = members.filter(
    (m) =>
      m.repository.rclass === 'remote' &&
      (!held || m.repository.remote?.namespaceConfusionProtection === false),
  );
  const readable: RepositoryHandle[] = [];
  for (const m of [...locals, ...remotes]) if (await m.can('read', `${packageFolder(p)}/`)) readable.push(m);
  return readable;
}

/** The repository answering for a release: itself, or a virtual's first member that has it. */
export async function holderOf(
  ctx: RepositoryHandle,
  p: PackageRef,
  version: string,
): Promise<RepositoryHandle | null> {
  if (ctx.repository.rclass !== 'virtual') return ctx;
  for (const m of await membersFor(ctx, p))
    if ((await releasesOf(m, p).catch(() => null))?.includes(version)) return m;
  return null;
}

/** Every version a repository offers of a package (a virtual: its members' merged), newest first. */
export async function allReleases(ctx: RepositoryHandle, p: PackageRef): Promise<string[] | null> {
  if (ctx.repository.rclass !== 'virtual') return (await releasesOf(ctx, p))?.sort(semver.rcompare) ?? null;
  let found: string[] | null = null;
  for (const m of await membersFor(ctx, p)) {
    const listed = await releasesOf(m, p).catch((err: unknown) => {
      if (m.repository.rclass !== 'remote') throw err;
      ctx.log.warn({ member: m.repository.key, err: (err as Error).message }, 'swift member failed');
      return null;
    });
    for (const v of listed ?? []) {
      found ??= [];
      if (!found.includes(v)) found.push(v);
    }
  }
  return found?.sort(semver.rcompare) ?? null;
}
