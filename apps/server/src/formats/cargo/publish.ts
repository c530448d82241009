import { createHash } from 'node:crypto';
import type { Readable } from 'node:stream';
import semver from 'semver';
import type { PackageMetadata, RequestContext } from '../sdk/format.ts';
import { readBounded } from '../sdk/helpers.ts';
import { CrateError, crateMetadata, readCrate } from './crate-file.ts';
import { CargoError } from './errors.ts';
import { type IndexEntry, localEntries, sameVersion, writeLocalIndex } from './index-file.ts';
import { crateFileOf, isCrateName } from './names.ts';

/** The largest `cargo publish` body (metadata + .crate); crates.io takes 10 MB crates. */
export const MAX_PUBLISH_BYTES = 64 * 1024 * 1024;
const MAX_METADATA_BYTES = 8 * 1024 * 1024;

interface PublishDep {
  name: string;
  version_req: string;
  features?: string[];
  optional?: boolean;
  default_features?: boolean;
  target?: string | null;
  kind?: string;
  registry?: string | null;
  explicit_name_in_toml?: string | null;
}

interface PublishMetadata {
  name: string;
  vers: string;
  deps: PublishDep[];
  features: Record<string, string[]>;
  description?: string | null;
  license?: string | null;
  keywords?: string[];
  readme?: string | null;
  links?: string | null;
  rust_version?: string | null;
}

const isObject = (v: unknown): v is Record<string, unknown> =>
  !!v && typeof v === 'object' && !Array.isArray(v);
const strOrNull = (v: unknown): string | null => (typeof v === 'string' ? v : null);

/** Splits the publish body: u32 LE length + JSON metadata, u32 LE length + the .crate. */
export function splitPublishBody(body: Buffer): { meta: PublishMetadata; crate: Buffer } {
  if (body.length < 4) throw new CargoError(400, 'The publish request is too short');
  const jsonLen = body.readUInt32LE(0);
  if (jsonLen > MAX_METADATA_BYTES || 4 + jsonLen + 4 > body.length)
    throw new CargoError(400, 'The publish request announces more metadata than it holds');
  let meta: unknown;
  try {
    meta = JSON.parse(body.subarray(4, 4 + jsonLen).toString('utf8'));
  } catch {
    throw new CargoError(400, 'The publish metadata is not valid JSON');
  }
  const crateLen = body.readUInt32LE(4 + jsonLen);
  const start = 8 + jsonLen;
  if (start + crateLen !== body.length)
    throw new CargoError(400, 'The publish request announces a .crate of another length than it holds');
  if (!isObject(meta) || typeof meta.name !== 'string' || typeof meta.vers !== 'string')
    throw new CargoError(400, 'The publish metadata needs a name and a vers');
  if (!isCrateName(meta.name))
    throw new CargoError(
      400,
      `Invalid crate name '${meta.name}': a letter, then letters, digits, '-' or '_', at most 64 characters`,
    );
  if (!semver.valid(meta.vers))
    throw new CargoError(400, `Invalid version '${meta.vers}': not a semver version`);
  if (meta.deps !== undefined && !Array.isArray(meta.deps))
    throw new CargoError(400, 'deps must be an array');
  for (const d of (meta.deps ?? []) as unknown[])
    if (!isObject(d) || typeof d.name !== 'string' || typeof d.version_req !== 'string')
      throw new CargoError(400, 'Each dependency needs a name and a version_req');
  if (meta.features !== undefined && !isObject(meta.features))
    throw new CargoError(400, 'features must be an object');
  return {
    meta: {
      ...(meta as unknown as PublishMetadata),
      deps: (meta.deps ?? []) as PublishDep[],
      features: (meta.features ?? {}) as Record<string, string[]>,
    },
    crate: body.subarray(start),
  };
}

/** The index entry of a published version (the Cargo book: the registry rewrites the publish metadata). */
export function indexEntryOf(meta: PublishMetadata, cksum: string): IndexEntry {
  const deps = meta.deps.map((d) => {
    const renamed = typeof d.explicit_name_in_toml === 'string' && d.explicit_name_in_toml;
    return {
      name: renamed ? d.explicit_name_in_toml : d.name,
      req: d.version_req,
      features: Array.isArray(d.features) ? d.features : [],
      optional: d.optional === true,
      default_features: d.default_features !== false,
      target: strOrNull(d.target),
      kind: d.kind ?? 'normal',
      registry: strOrNull(d.registry),
      ...(renamed ? { package: d.name } : {}),
    };
  });
  // Features using `dep:` or `?/` go to features2 (index v2), so older cargos skip what they cannot read.
  const features: Record<string, string[]> = {};
  const features2: Record<string, string[]> = {};
  for (const [k, v] of Object.entries(meta.features)) {
    const list = Array.isArray(v) ? v.filter((x): x is string => typeof x === 'string') : [];
    (list.some((x) => x.startsWith('dep:') || x.includes('?/')) ? features2 : features)[k] = list;
  }
  const two = Object.keys(features2).length > 0;
  return {
    name: meta.name,
    vers: meta.vers,
    deps,
    cksum,
    features,
    ...(two ? { features2 } : {}),
    yanked: false,
    links: strOrNull(meta.links),
    v: two ? 2 : 1,
    ...(typeof meta.rust_version === 'string' ? { rust_version: meta.rust_version } : {}),
  };
}

/**
 * `cargo publish` (`PUT /api/v1/crates/new`): checked before anything is stored — the body's
 * framing, the name and version (the JSON's and the .crate's Cargo.toml agree), the .crate's paths,
 * no version already published (build metadata aside). Then, under the crate's lock, the .crate is
 * stored and the index file rewritten; if the index cannot be written the .crate is removed again.
 */
export async function publishCrate(ctx: RequestContext, body: Readable, announced?: string | string[]) {
  if (ctx.repository.rclass === 'remote')
    throw new CargoError(405, `Remote repository '${ctx.repository.key}' does not accept publishes`);
  const target = await ctx.deployContext();
  // An anonymous caller hears 401 before the body is read.
  if (!ctx.principal) await target.authorize('write', 'crates/');
  const bytes = await readBounded(
    body,
    MAX_PUBLISH_BYTES,
    () => new CargoError(413, `The publish request is larger than the limit of ${MAX_PUBLISH_BYTES} bytes`),
    { announced, rest: 'drain' },
  );
  const { meta, crate } = splitPublishBody(bytes);
  const path = crateFileOf(meta.name, meta.vers);
  await target.authorize('write', path);
  let metadata: PackageMetadata;
  try {
    const contents = await readCrate(crate, `${meta.name}-${meta.vers}`);
    if (contents.pkg.name !== meta.name || contents.pkg.version !== meta.vers)
      throw new CargoError(
        400,
        `The .crate's Cargo.toml names ${String(contents.pkg.name)}@${String(contents.pkg.version)}, the publish metadata ${meta.name}@${meta.vers}`,
      );
    metadata = crateMetadata(contents);
    metadata.readme ??= typeof meta.readme === 'string' ? meta.readme : undefined;
  } catch (err) {
    if (err instanceof CrateError) throw new CargoError(400, err.message);
    throw err;
  }
  const cksum = createHash('sha256').update(crate).digest('hex');
  const entry = indexEntryOf(meta, cksum);
  await target.withLock(`crate:${meta.name.toLowerCase()}`, async () => {
    const entries = await localEntries(target, meta.name);
    const other = entries.find((e) => e.name !== meta.name);
    if (other)
      throw new CargoError(
        409,
        `A crate named '${other.name}' already exists: names differing only in case are the same crate`,
      );
    if (entries.some((e) => sameVersion(e.vers, meta.vers)))
      throw new CargoError(409, `crate version \`${meta.name}@${meta.vers}\` is already uploaded`);
    await target.deploy(path, crate, {
      noOverwrite: true,
      expected: { sha256: cksum },
      metadata,
      ...(meta.description ? { properties: { 'cargo.description': [meta.description.slice(0, 1000)] } } : {}),
    });
    try {
      await writeLocalIndex(target, meta.name, [...entries, entry]);
    } catch (err) {
      await target.delete(path, { permanent: true }).catch(() => undefined);
      throw err;
    }
  });
  return { warnings: { invalid_categories: [], invalid_badges: [], other: [] } };
}

/**
 * `cargo yank` / `cargo yank --undo`: the version's `yanked` flag in the index (write permission on
 * its .crate), in the local repository (through a virtual one: its default deployment repository).
 */
export async function setYanked(ctx: RequestContext, name: string, version: string, yanked: boolean) {
  if (ctx.repository.rclass === 'remote')
    throw new CargoError(405, `Remote repository '${ctx.repository.key}' does not yank: its upstream does`);
  const target = await ctx.deployContext();
  await target.authorize('write', crateFileOf(name, version));
  await target.withLock(`crate:${name.toLowerCase()}`, async () => {
    const entries = await localEntries(target, name);
    const entry = entries.find((e) => e.name === name && e.vers === version);
    if (!entry) throw new CargoError(404, `crate \`${name}\` does not have a version \`${version}\``);
    if (entry.yanked === yanked) return;
    entry.yanked = yanked;
    await writeLocalIndex(target, name, entries);
  });
  return { ok: true };
}
