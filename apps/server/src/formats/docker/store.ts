import { createHash } from 'node:crypto';
import type { Readable } from 'node:stream';
import { buffer } from 'node:stream/consumers';
import { httpStatusOf } from '../../platform/http/error-status.ts';
import type { FormatEvent, FormatFile, RepositoryHandle, SpooledBytes } from '../sdk/format.ts';
import {
  type Descriptor,
  digestFile,
  isDigest,
  isForeign,
  MANIFEST_TYPES,
  MAX_MANIFEST_BYTES,
  mediaTypeOf,
  OciError,
  type ParsedManifest,
  parseManifest,
  requireSha256,
  sha256Hex,
  TAG_LIST_MANIFEST,
  TAG_MANIFEST,
  TAG_RE,
  UPLOADS,
} from './oci.ts';
import { upstreamGet } from './upstream.ts';

/**
 * How images are stored (Artifactory's layout, through RepositoryHandle only):
 * - `{image}/_uploads/sha256__{hex}`: every blob and manifest of the image, content-addressed (the
 *   blob store keeps each content once, whatever the number of images and tags sharing it);
 * - `{image}/{tag}/manifest.json` (`list.manifest.json` for an index) plus the tag's config and
 *   layers as `sha256__{hex}`: what the tree browser shows, and the packages index's versions.
 */
export const blobPath = (image: string, hex: string) => `${image}/${UPLOADS}/${digestFile(hex)}`;

export interface ManifestHit {
  bytes: Buffer;
  digest: string;
  mediaType: string;
  file: FormatFile;
}

const sha256 = (bytes: Buffer) => createHash('sha256').update(bytes).digest('hex');

/**
 * Manifests read lately, by SHA-256, least recently used dropped past MANIFEST_CACHE_BYTES (issue 24:
 * a pull's manifest GET read its blob through a stream and parsed it each time, ~1 ms). Content
 * addressed, so never stale, on any node; shared by every server in the process for the same reason.
 */
const MANIFEST_CACHE_BYTES = 8 * 1024 * 1024;
const manifestCache = new Map<string, { bytes: Buffer; mediaType: string }>();
let manifestCacheBytes = 0;

function cachedManifest(hex: string): { bytes: Buffer; mediaType: string } | undefined {
  const hit = manifestCache.get(hex);
  if (hit) {
    manifestCache.delete(hex);
    manifestCache.set(hex, hit);
  }
  return hit;
}

function cacheManifest(hex: string, entry: { bytes: Buffer; mediaType: string }): void {
  if (manifestCache.has(hex) || entry.bytes.length > MANIFEST_CACHE_BYTES) return;
  manifestCache.set(hex, entry);
  manifestCacheBytes += entry.bytes.length;
  for (const [key, old] of manifestCache) {
    if (manifestCacheBytes <= MANIFEST_CACHE_BYTES) break;
    manifestCache.delete(key);
    manifestCacheBytes -= old.bytes.length;
  }
}

async function readManifestFile(file: FormatFile): Promise<ManifestHit | null> {
  if (file.size > MAX_MANIFEST_BYTES) return null;
  const digest = `sha256:${file.sha256}`;
  const hit = cachedManifest(file.sha256);
  if (hit) return { ...hit, digest, file };
  const bytes = await buffer(await file.open());
  if (!looksLikeManifest(bytes)) return null;
  // Only bytes that match the row's digest are kept under it (a damaged file is read, and refused, again).
  const entry = { bytes, mediaType: mediaTypeOf(bytes) };
  if (sha256(bytes) === file.sha256) cacheManifest(file.sha256, entry);
  return { ...entry, digest, file };
}

/** A stored blob is a manifest (schemaVersion 2 with layers or manifests), not a layer or a config. */
export function looksLikeManifest(bytes: Buffer): boolean {
  if (bytes.length === 0 || bytes.length > MAX_MANIFEST_BYTES || bytes[0] !== 0x7b) return false;
  try {
    const doc = JSON.parse(bytes.toString('utf8')) as Record<string, unknown>;
    return doc.schemaVersion === 2 && (Array.isArray(doc.layers) || Array.isArray(doc.manifests));
  } catch {
    return false;
  }
}

async function storedManifest(
  ctx: RepositoryHandle,
  image: string,
  ref: string,
  /** A pull's lookup, through the read cache (issue 24); a delete decides on fresh rows. */
  read = false,
): Promise<ManifestHit | null> {
  if (isDigest(ref)) {
    const file = await ctx.stat(blobPath(image, requireSha256(ref)), { read });
    return file && readManifestFile(file);
  }
  if (!TAG_RE.test(ref)) throw new OciError(400, 'MANIFEST_INVALID', `'${ref}' is not a valid tag`);
  const file =
    (await ctx.stat(`${image}/${ref}/${TAG_MANIFEST}`, { read })) ??
    (await ctx.stat(`${image}/${ref}/${TAG_LIST_MANIFEST}`, { read }));
  return file && readManifestFile(file);
}

/**
 * A remote repository's manifest: a digest is cached forever; a tag is asked of the upstream again
 * after the retrieval cache period, and the cached one is served while the upstream is down.
 */
async function remoteManifest(
  ctx: RepositoryHandle,
  image: string,
  ref: string,
  read: boolean,
): Promise<ManifestHit | null> {
  const cached = await storedManifest(ctx, image, ref, read);
  const byDigest = isDigest(ref);
  const periodMs = (ctx.repository.remote?.retrievalCachePeriodSecs ?? 0) * 1000;
  if (cached && (byDigest || Date.now() - cached.file.modifiedAt.getTime() < periodMs)) return cached;
  let res: Awaited<ReturnType<typeof upstreamGet>>;
  try {
    res = await upstreamGet(ctx, image, `manifests/${ref}`, {
      accept: MANIFEST_TYPES.join(', '),
      maxBytes: MAX_MANIFEST_BYTES,
    });
  } catch (err) {
    ctx.log.warn({ image, ref, err: (err as Error).message }, 'upstream registry unavailable');
    return cached;
  }
  if (res.status === 404) return null;
  if (res.status !== 200) {
    ctx.log.warn({ image, ref, status: res.status }, 'upstream registry refused a manifest');
    return cached;
  }
  const hex = sha256(res.body);
  if (byDigest && hex !== requireSha256(ref)) {
    ctx.log.warn({ image, ref }, 'upstream registry answered a manifest of another digest');
    return cached;
  }
  if (!looksLikeManifest(res.body)) return cached;
  const stored =
    (await ctx.stat(blobPath(image, hex))) ??
    (await ctx.cache(blobPath(image, hex), res.body, { expected: { sha256: hex } }));
  let file = stored;
  if (!byDigest) {
    const isIndex = Array.isArray(
      (JSON.parse(res.body.toString('utf8')) as { manifests?: unknown }).manifests,
    );
    const other = `${image}/${ref}/${isIndex ? TAG_MANIFEST : TAG_LIST_MANIFEST}`;
    if (await ctx.stat(other)) await ctx.delete(other).catch(() => 0);
    file = await ctx.cache(`${image}/${ref}/${isIndex ? TAG_LIST_MANIFEST : TAG_MANIFEST}`, res.body, {
      expected: { sha256: hex },
    });
  }
  return { bytes: res.body, digest: `sha256:${hex}`, mediaType: mediaTypeOf(res.body), file };
}

/**
 * The members a virtual repository resolves an image through, in order. Dependency-confusion
 * protection, as the core does for files: when a local member holds the image, remote members
 * never answer for it.
 */
async function membersFor(ctx: RepositoryHandle, image: string): Promise<RepositoryHandle[]> {
  const members = await ctx.members();
  for (const member of members)
    if (member.repository.rclass === 'local' && (await member.list(image)).length > 0)
      return members.filter((m) => m.repository.rclass !== 'remote');
  return members;
}

/** Members of a virtual repository that fail (an upstream down) are passed over, as the core does. */
async function firstOf<T>(
  ctx: RepositoryHandle,
  image: string,
  find: (member: RepositoryHandle) => Promise<T | null>,
) {
  for (const member of await membersFor(ctx, image)) {
    try {
      const hit = await find(member);
      if (hit) return hit;
    } catch (err) {
      const status = httpStatusOf(err) ?? (err as { status?: number }).status ?? 500;
      if (status < 500 && status !== 404 && status !== 401 && status !== 403) throw err;
      ctx.log.warn({ member: member.repository.key, err: (err as Error).message }, 'virtual member failed');
    }
  }
  return null;
}

/** A manifest by tag or digest, through the repository's class (`read`: a pull's, as `storedManifest`). */
export async function findManifest(
  ctx: RepositoryHandle,
  image: string,
  ref: string,
  read = false,
): Promise<ManifestHit | null> {
  if (ctx.repository.rclass === 'virtual')
    return firstOf(ctx, image, (m) => findManifest(m, image, ref, read));
  if (ctx.repository.rclass === 'remote') return remoteManifest(ctx, image, ref, read);
  return storedManifest(ctx, image, ref, read);
}

/** A blob of an image, through the repository's class (a remote fetches a miss once, however many pull it). */
export async function findBlob(
  ctx: RepositoryHandle,
  image: string,
  hex: string,
  /** A pull's lookup, through the read cache (issue 24); a cross-repository mount decides on a fresh row. */
  read = false,
): Promise<FormatFile | null> {
  if (ctx.repository.rclass === 'virtual') return firstOf(ctx, image, (m) => findBlob(m, image, hex, read));
  const path = blobPath(image, hex);
  const hit = await ctx.stat(path, { read });
  if (hit || ctx.repository.rclass !== 'remote') return hit;
  return ctx.withLock(`oci-blob:${hex}`, async () => {
    const again = await ctx.stat(path);
    if (again) return again;
    let res: Awaited<ReturnType<typeof upstreamGet>>;
    try {
      // Layers stream from the upstream into the cache: never whole in memory, however large.
      res = await upstreamGet(ctx, image, `blobs/sha256:${hex}`, { stream: true });
    } catch (err) {
      ctx.log.warn({ image, hex, err: (err as Error).message }, 'upstream registry unavailable');
      return null;
    }
    if (res.status !== 200 || !res.stream) {
      res.stream?.destroy();
      return null;
    }
    try {
      return await ctx.cache(path, res.stream, { expected: { sha256: hex } });
    } catch (err) {
      ctx.log.warn({ image, hex, err: (err as Error).message }, 'upstream blob does not match its digest');
      return null;
    }
  });
}

async function drainVerifying(source: Readable, hex: string): Promise<void> {
  const hash = createHash('sha256');
  for await (const chunk of source) hash.update(chunk as Buffer);
  if (hash.digest('hex') !== hex)
    throw new OciError(
      400,
      'DIGEST_INVALID',
      `The uploaded content does not match sha256:${hex}; nothing was stored`,
    );
}

const isChecksumMismatch = (err: unknown) => (err as { code?: string }).code === 'CHECKSUM_MISMATCH';

/**
 * Stores a blob the client pushed, visible only once its bytes match the digest (the core verifies
 * while it writes and stores nothing on a mismatch).
 */
export async function storeBlob(dctx: RepositoryHandle, image: string, hex: string, source: Readable) {
  const path = blobPath(image, hex);
  return dctx.withLock(`oci-blob:${hex}`, async () => {
    const existing = await dctx.stat(path);
    if (existing) {
      await drainVerifying(source, hex);
      return existing;
    }
    try {
      return await dctx.deploy(path, source, { expected: { sha256: hex }, metadata: null });
    } catch (err) {
      if (isChecksumMismatch(err))
        throw new OciError(
          400,
          'DIGEST_INVALID',
          `The uploaded content does not match sha256:${hex}; nothing was stored`,
        );
      throw err;
    }
  });
}

/**
 * Links bytes already in the blob store into the image, no bytes copied: a cross-repository mount
 * (found by digest), or an upload `RepositoryHandle.spool` stored (`spooled`). One row.
 */
export async function linkBlob(
  dctx: RepositoryHandle,
  image: string,
  hex: string,
  spooled?: SpooledBytes,
): Promise<FormatFile> {
  const path = blobPath(image, hex);
  return dctx.withLock(`oci-blob:${hex}`, async () => {
    const existing = await dctx.stat(path);
    if (existing) return existing;
    return dctx.deploy(path, Buffer.alloc(0), {
      ...(spooled ? { spooled } : { byChecksum: true }),
      expected: { sha256: hex },
      metadata: null,
    });
  });
}

/** An image's platform as `docker.pushed` names it (Artifactory's `platforms[]`). */
export interface ImagePlatform {
  architecture: string;
  os: string;
  variant?: string;
}

/** Largest image config read for its platform (configs are a few KB). */
const MAX_CONFIG_BYTES = 1024 * 1024;

function platformOf(value: unknown): ImagePlatform | null {
  const p = value as { architecture?: unknown; os?: unknown; variant?: unknown } | null;
  if (!p || typeof p.architecture !== 'string' || typeof p.os !== 'string') return null;
  return {
    architecture: p.architecture,
    os: p.os,
    ...(typeof p.variant === 'string' ? { variant: p.variant } : {}),
  };
}

/**
 * The platforms a pushed manifest is for: an index's entries' `platform`, or an image's config
 * (`architecture`, `os`); none for an artifact that is no image (a signature, an SBOM).
 */
async function platformsOf(parsed: ParsedManifest, config: FormatFile | undefined): Promise<ImagePlatform[]> {
  if (parsed.isIndex)
    return parsed.manifests.map((m) => platformOf(m.platform)).filter((p): p is ImagePlatform => !!p);
  if (!config || config.size > MAX_CONFIG_BYTES) return [];
  try {
    const found = platformOf(JSON.parse((await buffer(await config.open())).toString('utf8')));
    return found ? [found] : [];
  } catch {
    return [];
  }
}

/** issue 14 §Events: `docker.pushed` / `docker.deleted` of one tag, its manifest file as the artifact. */
function tagEvent(
  eventType: 'pushed' | 'deleted',
  image: string,
  tag: string,
  manifest: { path: string; sha256: string; size: number },
  platforms?: ImagePlatform[],
): FormatEvent {
  return {
    type: `docker.${eventType}`,
    data: {
      path: manifest.path,
      name: manifest.path.slice(manifest.path.lastIndexOf('/') + 1),
      sha256: manifest.sha256,
      size: manifest.size,
      image_name: image,
      tag,
      ...(platforms && platforms.length > 0 ? { platforms } : {}),
    },
  };
}

function imageSize(parsed: ParsedManifest, body: Buffer): number {
  return body.length + parsed.blobs.reduce((sum, d) => sum + d.size, 0);
}

/**
 * Stores a pushed manifest byte for byte: its Content-Type is checked before the body is parsed,
 * every blob and child manifest it names must be in the image (MANIFEST_BLOB_UNKNOWN), a digest
 * reference must match the bytes. A tag gets `{image}/{tag}/manifest.json` and its layers.
 */
export async function storeManifest(
  dctx: RepositoryHandle,
  image: string,
  ref: string,
  contentType: string | undefined,
  body: Buffer,
): Promise<{ digest: string; parsed: ParsedManifest }> {
  const byDigest = isDigest(ref);
  if (!byDigest && !TAG_RE.test(ref))
    throw new OciError(400, 'MANIFEST_INVALID', `'${ref}' is not a valid tag`);
  const parsed = parseManifest(contentType, body);
  const hex = sha256(body);
  if (byDigest && requireSha256(ref) !== hex)
    throw new OciError(400, 'DIGEST_INVALID', `The manifest's digest is sha256:${hex}, not ${ref}`);
  /** The stored blobs the manifest names, by hex (foreign layers are never here). */
  const blobs = new Map<string, FormatFile>();
  const missing = async (d: Descriptor) => {
    const h = sha256Hex(d.digest);
    const file = h ? await dctx.stat(blobPath(image, h)) : null;
    if (!file)
      throw new OciError(
        400,
        'MANIFEST_BLOB_UNKNOWN',
        `The manifest references ${d.digest}, which is not in ${image}`,
        {
          digest: d.digest,
        },
      );
    if (file.size !== d.size)
      throw new OciError(
        400,
        'MANIFEST_INVALID',
        `The manifest gives ${d.digest} a size of ${d.size} bytes; it has ${file.size}`,
      );
    blobs.set(h!, file);
  };
  await Promise.all([...parsed.blobs.filter((d) => !isForeign(d)), ...parsed.manifests].map(missing));

  const properties: Record<string, string[]> = {
    'docker.manifest.digest': [`sha256:${hex}`],
    'docker.manifest.type': [parsed.mediaType],
    'docker.repoName': [image],
    ...(parsed.subject ? { 'docker.subject': [parsed.subject.digest] } : {}),
    ...(parsed.artifactType ? { 'docker.artifactType': [parsed.artifactType] } : {}),
  };
  // The content-addressed copy under the blob's own lock; the tag under its tag's lock: pushes of
  // other tags of the image go side by side (one lock per image made concurrent pushes of one image
  // wait in a single line, issue 12 §14).
  const canonicalPath = blobPath(image, hex);
  const canonical = await dctx.withLock(
    `oci-blob:${hex}`,
    async () =>
      (await dctx.stat(canonicalPath)) ??
      (await dctx.deploy(canonicalPath, body, { expected: { sha256: hex }, properties, metadata: null })),
  );
  if (byDigest) return { digest: `sha256:${hex}`, parsed };
  await dctx.withLock(`oci-tag:${image}:${ref}`, async () => {
    const folder = `${image}/${ref}`;
    const name = parsed.isIndex ? TAG_LIST_MANIFEST : TAG_MANIFEST;
    const other = parsed.isIndex ? TAG_MANIFEST : TAG_LIST_MANIFEST;
    // What the tag's folder holds, in one query: its manifest file and its layer files.
    const held = new Map((await dctx.listFiles(folder)).map((f) => [f.path.slice(folder.length + 1), f]));
    if (held.get(name)?.sha256 === hex) return;
    if (held.has(other)) await dctx.delete(`${folder}/${other}`, { permanent: true });
    const wanted = new Map<string, FormatFile>();
    for (const d of parsed.blobs) {
      const h = sha256Hex(d.digest);
      const file = h && !isForeign(d) ? blobs.get(h) : undefined;
      if (file) wanted.set(digestFile(h!), file);
    }
    for (const [entry, file] of held)
      if (!entry.includes('/') && entry.startsWith('sha256__') && !wanted.has(entry))
        await dctx.delete(file.path, { permanent: true });
    const size = imageSize(parsed, body);
    const configHex = parsed.config && sha256Hex(parsed.config.digest);
    const pushed = tagEvent(
      'pushed',
      image,
      ref,
      { path: `${folder}/${name}`, sha256: hex, size: body.length },
      await platformsOf(parsed, configHex ? blobs.get(configHex) : undefined),
    );
    // No bytes are written: the manifest is stored (the canonical copy), the layers too. The tag's
    // manifest file and its layer files are rows, all in one transaction, with the tag's event.
    await dctx.link(
      [
        {
          path: `${folder}/${name}`,
          sameAs: canonical,
          properties: {
            ...properties,
            'docker.manifest': [ref],
            'docker.size': [String(size)],
            'docker.layers': parsed.blobs.slice(1).map((d) => d.digest),
          },
          // issue 22: the version's size is the image's (config and layers, as `docker images` counts
          // it), which the console shows beside the layer count; the manifest's own bytes are no part of it.
          metadata: {
            name: image,
            version: ref,
            description: parsed.isIndex
              ? `${parsed.manifests.length} platform manifests`
              : `${parsed.blobs.length - 1} layer${parsed.blobs.length === 2 ? '' : 's'}`,
            leadFile: true,
            ...(parsed.isIndex ? {} : { size: size - body.length }),
          },
        },
        ...[...wanted]
          .filter(([fileName]) => held.get(fileName)?.sha256 === undefined)
          .map(([fileName, file]) => ({ path: `${folder}/${fileName}`, sameAs: file, metadata: null })),
      ],
      { events: [pushed] },
    );
  });
  return { digest: `sha256:${hex}`, parsed };
}

/** Tags of an image in one repository (null: no such image). */
async function storedTags(ctx: RepositoryHandle, image: string): Promise<string[] | null> {
  const entries = await ctx.list(image);
  if (entries.length === 0) return null;
  return entries
    .filter(
      (e) => e.folder && !e.name.startsWith('_') && !e.name.startsWith('sha256__') && TAG_RE.test(e.name),
    )
    .map((e) => e.name);
}

async function remoteTags(ctx: RepositoryHandle, image: string): Promise<string[] | null> {
  const cached = await storedTags(ctx, image);
  try {
    const res = await upstreamGet(ctx, image, 'tags/list?n=10000', { maxBytes: 16 * 1024 * 1024 });
    if (res.status === 404) return cached;
    if (res.status === 200) {
      const doc = JSON.parse(res.body.toString('utf8')) as { tags?: string[] | null };
      return [...new Set([...(doc.tags ?? []), ...(cached ?? [])])];
    }
  } catch (err) {
    ctx.log.warn({ image, err: (err as Error).message }, 'upstream registry unavailable for tags');
  }
  return cached;
}

/** Tags of an image through the repository's class; a virtual repository merges its members'. */
export async function listTags(ctx: RepositoryHandle, image: string): Promise<string[] | null> {
  if (ctx.repository.rclass === 'virtual') {
    let found: Set<string> | null = null;
    for (const member of await membersFor(ctx, image)) {
      const tags = await listTags(member, image).catch(() => null);
      if (tags) found = new Set([...(found ?? []), ...tags]);
    }
    return found && [...found];
  }
  if (ctx.repository.rclass === 'remote') return remoteTags(ctx, image);
  return storedTags(ctx, image);
}

/** Deletes a tag, or a manifest by digest with every tag that points at it (local repositories). */
export async function deleteManifest(ctx: RepositoryHandle, image: string, ref: string): Promise<void> {
  // issue 14 §Events: each tag removed is a `docker.deleted`, in the transaction of its files.
  const deleted = (tag: string, hit: ManifestHit) => ({
    events: [tagEvent('deleted', image, tag, hit.file)],
  });
  if (!isDigest(ref)) {
    const hit = await storedManifest(ctx, image, ref);
    if (!hit) throw new OciError(404, 'MANIFEST_UNKNOWN', `${image}:${ref} is not here`);
    await ctx.delete(`${image}/${ref}`, deleted(ref, hit));
    return;
  }
  const hex = requireSha256(ref);
  const canonical = await ctx.stat(blobPath(image, hex));
  let removed = 0;
  for (const tag of (await storedTags(ctx, image)) ?? []) {
    const hit = await storedManifest(ctx, image, tag);
    if (hit?.file.sha256 === hex) {
      await ctx.delete(`${image}/${tag}`, deleted(tag, hit));
      removed += 1;
    }
  }
  if (canonical && (await readManifestFile(canonical))) {
    await ctx.delete(blobPath(image, hex));
    removed += 1;
  }
  if (removed === 0) throw new OciError(404, 'MANIFEST_UNKNOWN', `${image}@${ref} is not here`);
}

/** spec "Listing Referrers": manifests of the image whose `subject` is the digest, as index descriptors. */
export async function listReferrers(
  ctx: RepositoryHandle,
  image: string,
  hex: string,
  artifactType?: string,
): Promise<Descriptor[]> {
  if (ctx.repository.rclass === 'virtual') {
    const seen = new Map<string, Descriptor>();
    for (const member of await ctx.members())
      for (const d of await listReferrers(member, image, hex, artifactType).catch(() => []))
        seen.set(d.digest, d);
    return [...seen.values()];
  }
  const found: Descriptor[] = [];
  for (const file of await ctx.listFiles(`${image}/${UPLOADS}`)) {
    const subject = file.properties['docker.subject']?.[0];
    if (subject !== `sha256:${hex}`) continue;
    const hit = await readManifestFile(file);
    if (!hit) continue;
    const doc = JSON.parse(hit.bytes.toString('utf8')) as {
      artifactType?: string;
      config?: { mediaType?: string };
      annotations?: Record<string, string>;
    };
    const type = doc.artifactType ?? doc.config?.mediaType;
    if (artifactType && type !== artifactType) continue;
    found.push({
      mediaType: hit.mediaType,
      digest: hit.digest,
      size: hit.bytes.length,
      ...(type ? { artifactType: type } : {}),
      ...(doc.annotations ? { annotations: doc.annotations } : {}),
    });
  }
  return found;
}

/** Images of a repository that hold at least one manifest (for `_catalog`). */
export async function listImages(ctx: RepositoryHandle): Promise<string[]> {
  if (ctx.repository.rclass === 'virtual') return [];
  const images = new Set<string>();
  for (const file of await ctx.listFiles('')) {
    const m = /^(.+)\/([^/]+)\/(manifest\.json|list\.manifest\.json)$/.exec(file.path);
    if (m && m[2] !== UPLOADS) images.add(m[1]!);
    const u = /^(.+)\/_uploads\/sha256__[a-f0-9]{64}$/.exec(file.path);
    if (u && file.properties['docker.manifest.type']) images.add(u[1]!);
  }
  return [...images].sort();
}
