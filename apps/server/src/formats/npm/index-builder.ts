import { createHash } from 'node:crypto';
import { gzipSync } from 'node:zlib';
import semver from 'semver';
import type { FormatRepository, RepositoryHandle, StoredFile } from '../sdk/format.ts';
import { eventsFolder, metaFolder, remotePackumentPath, tarballPath, versionsFolder } from './names.ts';

/** What was published for one version (`.npm/{name}/versions/{version}.json`), written once. */
export interface VersionRecord {
  manifest: Manifest;
  /** dist-tags the publish set (`npm publish --tag`, default `latest`) */
  tags: string[];
  publishedAt: string;
  publisher?: string;
  readme?: string;
  readmeFilename?: string;
}

/** A dist-tag change or a deprecation (`.npm/{name}/events/…json`), written once. */
export type PackageEvent =
  | { type: 'tag'; tag: string; version: string | null; at: string; by?: string }
  | { type: 'deprecate'; version: string; message: string; at: string; by?: string };

export type Manifest = Record<string, unknown> & {
  name: string;
  version: string;
  dist?: Record<string, unknown> & { tarball?: string };
  deprecated?: string;
};

/**
 * A packument as Granary holds it: tarball URLs relative to the repository root
 * (`pkg/-/pkg-1.0.0.tgz`), made absolute for the repository that serves it.
 */
export interface Packument {
  name: string;
  description?: string;
  'dist-tags': Record<string, string>;
  versions: Record<string, Manifest>;
  time: Record<string, string>;
  readme?: string;
  readmeFilename?: string;
  maintainers?: { name: string }[];
  /** which stored state it was derived from; changes whenever anything does */
  fingerprint: string;
  /** a member of a virtual repository holding the name locally */
  local: boolean;
}

const sha1 = (s: string) => createHash('sha1').update(s).digest('hex');

async function readJson<T>(open: () => Promise<NodeJS.ReadableStream>): Promise<T> {
  const chunks: Buffer[] = [];
  for await (const c of await open()) chunks.push(c as Buffer);
  return JSON.parse(Buffer.concat(chunks).toString('utf8')) as T;
}

/** The highest version, preferring releases to prereleases (what `latest` falls back to). */
export function highest(versions: string[]): string | undefined {
  const valid = versions.filter((v) => semver.valid(v));
  const releases = valid.filter((v) => !semver.prerelease(v));
  return (releases.length ? releases : valid).sort(semver.compare).at(-1) ?? versions.at(-1);
}

/**
 * A least-recently-used cache bounded by entries and by (estimated) bytes: public packuments can be many MB.
 * A hit moves its entry to the young end only when it has drifted into the older half: moving it on
 * every hit cost a Map delete and insert per packument GET (4% of S1's profile, issue 24), and an entry
 * in the younger half is nowhere near eviction.
 */
class BoundedCache<V> {
  private readonly entries = new Map<string, { value: V; bytes: number; seq: number }>();
  private bytes = 0;
  private seq = 0;
  constructor(
    private readonly maxEntries: number,
    private readonly maxBytes: number,
  ) {}
  get(key: string): V | undefined {
    const e = this.entries.get(key);
    if (!e) return undefined;
    if (e.seq < this.seq - this.entries.size / 2) {
      this.entries.delete(key);
      e.seq = ++this.seq;
      this.entries.set(key, e);
    }
    return e.value;
  }
  set(key: string, value: V, bytes: number): void {
    const old = this.entries.get(key);
    if (old) {
      this.bytes -= old.bytes;
      this.entries.delete(key);
    }
    if (bytes > this.maxBytes / 4) return;
    this.entries.set(key, { value, bytes, seq: ++this.seq });
    this.bytes += bytes;
    while (this.entries.size > this.maxEntries || this.bytes > this.maxBytes) {
      const [oldest, e] = this.entries.entries().next().value!;
      this.entries.delete(oldest);
      this.bytes -= e.bytes;
    }
  }
}

const MAX_BUILT = 2000;
/** Built packuments, reused while their stored state is unchanged (checked by fingerprint on every read). */
const built = new BoundedCache<Packument>(MAX_BUILT, 128 * 1024 * 1024);

function remember(key: string, p: Packument, bytes: number): Packument {
  built.set(key, p, bytes);
  return p;
}

/**
 * A local repository's packument, derived from the version records and events stored for the name
 * (null when no version is). Dist-tags replay publishes and tag events in time order; a tag left
 * pointing at an unpublished version is dropped, and `latest` falls back to the highest version.
 */
export async function localPackument(ctx: RepositoryHandle, name: string): Promise<Packument | null> {
  const key = `L\u0000${ctx.repository.key}\u0000${name}`;
  const { checkedAt, absent } = freshnessOf(ctx.node);
  const checked = checkedAt.get(key);
  if (checked !== undefined && Date.now() - checked < FRESH_MS) {
    const hit = built.get(key);
    if (hit) return hit;
    if (absent.has(key)) return null;
  }
  const found = await buildLocal(ctx, name, key);
  if (checkedAt.size >= MAX_BUILT) checkedAt.clear();
  checkedAt.set(key, Date.now());
  if (found) absent.delete(key);
  else {
    if (absent.size >= MAX_BUILT) absent.clear();
    absent.add(key);
  }
  return found;
}

/**
 * How long a local packument is served without looking at the stored files again (as the core
 * caches artifact rows on the read path): changes made on this node drop it at once (`forget`);
 * another node's are seen within this time. Built and rendered packuments are checked by fingerprint
 * and may be shared; what was checked when is each node's own.
 */
const FRESH_MS = 1000;
const freshness = new WeakMap<object, { checkedAt: Map<string, number>; absent: Set<string> }>();

function freshnessOf(node: object) {
  let state = freshness.get(node);
  if (!state) {
    state = { checkedAt: new Map(), absent: new Set() };
    freshness.set(node, state);
  }
  return state;
}

/** Drops what this node holds of a local package, after any change to it. */
export function forget(ctx: Pick<RepositoryHandle, 'node' | 'repository'>, name: string): void {
  const key = `L\u0000${ctx.repository.key}\u0000${name}`;
  const { checkedAt, absent } = freshnessOf(ctx.node);
  checkedAt.delete(key);
  absent.delete(key);
}

async function buildLocal(ctx: RepositoryHandle, name: string, key: string): Promise<Packument | null> {
  const files = (await ctx.listFiles(metaFolder(name))).filter(
    (f) => f.path.startsWith(`${versionsFolder(name)}/`) || f.path.startsWith(`${eventsFolder(name)}/`),
  );
  if (!files.some((f) => f.path.startsWith(`${versionsFolder(name)}/`))) return null;
  files.sort((a, b) => (a.path < b.path ? -1 : 1));
  const fingerprint = sha1(files.map((f) => `${f.path}\u0000${f.sha256}`).join('\n'));
  const hit = built.get(key);
  if (hit?.fingerprint === fingerprint) return hit;

  const records: VersionRecord[] = [];
  const events: PackageEvent[] = [];
  await Promise.all(
    files.map(async (f) => {
      try {
        if (f.path.startsWith(`${versionsFolder(name)}/`))
          records.push(await readJson<VersionRecord>(f.open));
        else events.push(await readJson<PackageEvent>(f.open));
      } catch (err) {
        ctx.log.warn({ path: f.path, err: (err as Error).message }, 'unreadable npm metadata file skipped');
      }
    }),
  );
  const versions: Record<string, Manifest> = {};
  const time: Record<string, string> = {};
  const maintainers = new Set<string>();
  for (const r of records) {
    const v = r.manifest.version;
    versions[v] = { ...r.manifest, dist: { ...r.manifest.dist, tarball: tarballPath(name, v) } };
    time[v] = r.publishedAt;
    if (r.publisher) maintainers.add(r.publisher);
  }
  const timeline: { at: string; apply: () => void }[] = [];
  const tags: Record<string, string | null> = {};
  for (const r of records)
    timeline.push({
      at: r.publishedAt,
      apply: () => {
        for (const t of r.tags) tags[t] = r.manifest.version;
      },
    });
  for (const e of events)
    timeline.push({
      at: e.at,
      apply: () => {
        if (e.type === 'tag') tags[e.tag] = e.version;
        else if (versions[e.version]) {
          if (e.message) versions[e.version]!.deprecated = e.message;
          else delete versions[e.version]!.deprecated;
        }
      },
    });
  timeline.sort((a, b) => (a.at < b.at ? -1 : a.at > b.at ? 1 : 0));
  for (const t of timeline) t.apply();
  const distTags: Record<string, string> = {};
  for (const [tag, v] of Object.entries(tags)) if (v && versions[v]) distTags[tag] = v;
  if (!distTags.latest) distTags.latest = highest(Object.keys(versions))!;

  const stamps = [...records.map((r) => r.publishedAt), ...events.map((e) => e.at)].sort();
  const latest = records.find((r) => r.manifest.version === distTags.latest);
  const withReadme = latest?.readme ? latest : records.find((r) => r.readme);
  const bytes = files.reduce((n, f) => n + f.size, 0) * 2;
  return remember(
    key,
    {
      name,
      description: typeof latest?.manifest.description === 'string' ? latest.manifest.description : undefined,
      'dist-tags': distTags,
      versions,
      time: { created: stamps[0]!, modified: stamps.at(-1)!, ...time },
      readme: withReadme?.readme,
      readmeFilename: withReadme?.readmeFilename,
      maintainers: [...maintainers].map((m) => ({ name: m })),
      fingerprint,
      local: true,
    },
    bytes,
  );
}

/** `https://registry.npmjs.org/pkg/-/pkg-1.0.0.tgz` → `pkg/-/pkg-1.0.0.tgz` (this repository's path). */
function relativeTarball(name: string, url: unknown, version: string): string {
  const file = typeof url === 'string' ? url.split('?')[0]!.split('/').at(-1) : undefined;
  return file?.endsWith('.tgz') ? `${name}/-/${decodeURIComponent(file)}` : tarballPath(name, version);
}

/**
 * A remote repository's packument: the upstream's, cached at `.npm/{name}/package.json` and
 * revalidated after the metadata retrieval period (the core's remote cache), with tarball URLs
 * pointing at this repository.
 */
export async function remotePackument(
  ctx: { repository: FormatRepository; get(path: string): Promise<StoredFile | null> },
  name: string,
): Promise<Packument | null> {
  const file = await ctx.get(remotePackumentPath(name));
  if (!file) return null;
  const key = `R\u0000${ctx.repository.key}\u0000${name}`;
  const hit = built.get(key);
  if (hit?.fingerprint === file.sha256) return hit;
  const doc = await readJson<Record<string, unknown>>(file.open);
  if (!doc || typeof doc !== 'object' || !doc.versions || typeof doc.versions !== 'object') return null;
  const versions: Record<string, Manifest> = {};
  for (const [v, m] of Object.entries(doc.versions as Record<string, Manifest>)) {
    if (!m || typeof m !== 'object') continue;
    const dist = (m.dist ?? {}) as Record<string, unknown>;
    versions[v] = { ...m, dist: { ...dist, tarball: relativeTarball(name, dist.tarball, v) } };
  }
  const distTags: Record<string, string> = {};
  for (const [t, v] of Object.entries((doc['dist-tags'] ?? {}) as Record<string, unknown>))
    if (typeof v === 'string' && versions[v]) distTags[t] = v;
  if (!distTags.latest && Object.keys(versions).length) distTags.latest = highest(Object.keys(versions))!;
  return remember(
    key,
    {
      name,
      description: typeof doc.description === 'string' ? doc.description : undefined,
      'dist-tags': distTags,
      versions,
      time: (doc.time && typeof doc.time === 'object' ? doc.time : {}) as Record<string, string>,
      readme: typeof doc.readme === 'string' ? doc.readme : undefined,
      readmeFilename: typeof doc.readmeFilename === 'string' ? doc.readmeFilename : undefined,
      maintainers: Array.isArray(doc.maintainers) ? (doc.maintainers as { name: string }[]) : undefined,
      fingerprint: file.sha256,
      local: false,
    },
    file.size * 2,
  );
}

/** The packument of a name in any repository: local, remote, or a virtual repository's merge. */
export async function packumentOf(ctx: RepositoryHandle, name: string): Promise<Packument | null> {
  if (ctx.repository.rclass === 'local') return localPackument(ctx, name);
  if (ctx.repository.rclass === 'remote') return remotePackument(ctx, name);
  return virtualPackument(ctx, name);
}

/**
 * A virtual repository's packument: its members' merged in resolution order (the first member
 * with a version wins it, and each dist-tag). When a local member holds the name, versions come
 * only from local members: an upstream can never add a version to a name taken here (dependency
 * confusion), so remote members are not even asked for it (the name never leaves the server).
 * A failing upstream leaves its member out.
 */
export async function virtualPackument(ctx: RepositoryHandle, name: string): Promise<Packument | null> {
  const members = await ctx.members();
  const packumentIn = async (m: RepositoryHandle) => {
    try {
      return await packumentOf(m, name);
    } catch (err) {
      ctx.log.warn({ member: m.repository.key, name, err: (err as Error).message }, 'npm member skipped');
      return null;
    }
  };
  const isLocal = (m: RepositoryHandle) => m.repository.rclass === 'local';
  const local = (await Promise.all(members.filter(isLocal).map(packumentIn))).filter(
    (p): p is Packument => p !== null,
  );
  const others =
    local.length > 0
      ? []
      : (await Promise.all(members.filter((m) => !isLocal(m)).map(packumentIn))).filter(
          (p): p is Packument => p !== null,
        );
  // Local members first (they win every version anyway), then the others in member order.
  const parts = [...local, ...others];
  if (parts.length === 0) return null;
  if (parts.length === 1) return { ...parts[0]!, fingerprint: `V${parts[0]!.fingerprint}` };
  const versions: Record<string, Manifest> = {};
  const time: Record<string, string> = {};
  const distTags: Record<string, string> = {};
  for (const p of parts) {
    for (const [v, m] of Object.entries(p.versions))
      if (!versions[v]) {
        versions[v] = m;
        if (p.time[v]) time[v] = p.time[v]!;
      }
    for (const [t, v] of Object.entries(p['dist-tags'])) if (!distTags[t]) distTags[t] = v;
  }
  const stamps = parts.flatMap((p) => [p.time.created, p.time.modified]).filter((s): s is string => !!s);
  stamps.sort();
  const first = parts[0]!;
  return {
    ...first,
    'dist-tags': distTags,
    versions,
    time: { ...(stamps.length ? { created: stamps[0]!, modified: stamps.at(-1)! } : {}), ...time },
    fingerprint: `V${sha1(parts.map((p) => p.fingerprint).join('\n'))}`,
  };
}

/** Fields of a version the installer needs (npm's abbreviated metadata, `application/vnd.npm.install-v1+json`). */
const ABBREVIATED_FIELDS = [
  'name',
  'version',
  'deprecated',
  'dependencies',
  'optionalDependencies',
  'devDependencies',
  'bundleDependencies',
  'bundledDependencies',
  'peerDependencies',
  'peerDependenciesMeta',
  'acceptDependencies',
  'bin',
  'directories',
  'dist',
  'engines',
  'os',
  'cpu',
  'libc',
  'funding',
  'license',
  '_hasShrinkwrap',
  'hasInstallScript',
] as const;

/** The revision npm passes back on unpublish (`/-rev/{rev}`). */
export const revOf = (p: Packument) => `${Object.keys(p.versions).length}-${p.fingerprint.slice(-16)}`;

/** The JSON a client receives: full or abbreviated, tarball URLs under `repositoryUrl`. */
export function renderPackument(p: Packument, repositoryUrl: string, abbreviated: boolean): string {
  const versions: Record<string, unknown> = {};
  for (const [v, m] of Object.entries(p.versions)) {
    const dist = { ...m.dist, tarball: `${repositoryUrl}/${m.dist?.tarball ?? tarballPath(p.name, v)}` };
    if (abbreviated) {
      const out: Record<string, unknown> = {};
      for (const f of ABBREVIATED_FIELDS) if (m[f] !== undefined) out[f] = m[f];
      out.dist = dist;
      if (!out.hasInstallScript && typeof m.scripts === 'object' && m.scripts) {
        const s = m.scripts as Record<string, unknown>;
        if (s.preinstall || s.install || s.postinstall) out.hasInstallScript = true;
      }
      versions[v] = out;
    } else versions[v] = { ...m, dist };
  }
  if (abbreviated)
    return JSON.stringify({
      name: p.name,
      modified: p.time.modified ?? new Date(0).toISOString(),
      'dist-tags': p['dist-tags'],
      versions,
    });
  return JSON.stringify({
    _id: p.name,
    _rev: revOf(p),
    name: p.name,
    description: p.description,
    'dist-tags': p['dist-tags'],
    versions,
    time: p.time,
    maintainers: p.maintainers,
    readme: p.readme ?? '',
    readmeFilename: p.readmeFilename,
  });
}

/** A packument as sent: bytes, its strong ETag and (made on first demand) its gzip form. */
export interface RenderedPackument {
  fingerprint: string;
  body: Buffer;
  etag: string;
  gzip?: Buffer;
}

const rendered = new BoundedCache<RenderedPackument>(2000, 128 * 1024 * 1024);

/**
 * Rendered packuments, kept as bytes per repository URL and shape while the packument is unchanged
 * (issue 24: a hit costs a map lookup and a string comparison, no JSON, no hashing, no encoding).
 */
export function renderCached(p: Packument, repositoryUrl: string, abbreviated: boolean): RenderedPackument {
  const key = `${repositoryUrl}\u0000${p.name}\u0000${abbreviated ? 'a' : 'f'}`;
  const hit = rendered.get(key);
  if (hit?.fingerprint === p.fingerprint) return hit;
  const entry: RenderedPackument = {
    fingerprint: p.fingerprint,
    body: Buffer.from(renderPackument(p, repositoryUrl, abbreviated)),
    etag: `"${sha1(`${p.fingerprint}\u0000${key}`)}"`,
  };
  rendered.set(key, entry, entry.body.length * 2);
  return entry;
}

/** Bodies smaller than this are sent as they are: compressing them saves less than it costs. */
const GZIP_MIN_BYTES = 1024;

/** The gzip form of a rendered packument, made once per version of it. */
export function gzipOf(entry: RenderedPackument): Buffer | undefined {
  if (entry.body.length < GZIP_MIN_BYTES) return undefined;
  entry.gzip ??= gzipSync(entry.body);
  return entry.gzip;
}
