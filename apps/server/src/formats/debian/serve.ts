import { createHash } from 'node:crypto';
import { Readable } from 'node:stream';
import { gunzipSync } from 'node:zlib';
import type { FastifyReply } from 'fastify';
import { readAtMost } from '../../platform/archives/bounded-archive.ts';
import { UpstreamError } from '../../platform/errors.ts';
import { httpStatusOf } from '../../platform/http/error-status.ts';
import { loadOpenpgp } from '../../platform/openpgp/index.ts';
import type { FormatFile, FormatRequest, RepositoryHandle, RequestContext } from '../sdk/format.ts';
import { field, type Paragraph, parseParagraphs } from './control.ts';
import { readDeb } from './deb-file.ts';
import { DebianError } from './errors.ts';
import { packagesFiles, releaseDate, releaseList, releaseText } from './indexes.ts';
import { binaryFolder, distPath, FLAT, HASH_FOLDERS, type IndexPath } from './layout.ts';
import { poolName } from './upload.ts';

/** An index document read whole (Debian's largest Packages are tens of MiB). */
const MAX_INDEX_BYTES = 256 * 1024 * 1024;

const digest = (algorithm: string, b: Buffer) => createHash(algorithm).update(b).digest('hex');

const isServerError = (err: unknown) => {
  const status = httpStatusOf(err) ?? (err as { status?: unknown }).status;
  return typeof status === 'number' && status >= 500;
};

async function readFile(file: FormatFile, what: string): Promise<Buffer> {
  return readAtMost(await file.open(), MAX_INDEX_BYTES, what);
}

function sendBytes(request: FormatRequest, reply: FastifyReply, body: Buffer, type: string) {
  const etag = `"${digest('sha256', body).slice(0, 32)}"`;
  reply.header('etag', etag).header('cache-control', 'no-cache').type(type);
  if (request.headers['if-none-match'] === etag) return reply.code(304).send();
  if (request.method === 'HEAD') return reply.code(200).header('content-length', body.length).send();
  return reply.code(200).send(body);
}

/** The repository's public key: armored (`KEY.asc`) or binary (`KEY.gpg`, what apt's `signed-by` reads). */
export async function serveKey(
  request: FormatRequest,
  reply: FastifyReply,
  ctx: RequestContext,
  armored: boolean,
) {
  await ctx.authorize('read', armored ? 'KEY.asc' : 'KEY.gpg');
  const text = await ctx.signing.publicKey();
  if (armored) return sendBytes(request, reply, Buffer.from(text), 'application/pgp-keys');
  const openpgp = await loadOpenpgp();
  const key = await openpgp.readKey({ armoredKey: text });
  return sendBytes(request, reply, Buffer.from(key.write()), 'application/pgp-keys');
}

/** A Release's signatures, made with the repository's key as it is now. */
async function sendSigned(
  request: FormatRequest,
  reply: FastifyReply,
  ctx: RequestContext,
  release: Buffer,
  file: 'InRelease' | 'Release.gpg',
) {
  if (file === 'InRelease')
    return sendBytes(
      request,
      reply,
      Buffer.from(await ctx.signing.clearsign(release.toString('utf8'))),
      'text/plain; charset=utf-8',
    );
  return sendBytes(
    request,
    reply,
    Buffer.from(await ctx.signing.signDetached(release)),
    'application/pgp-signature',
  );
}

const notFound = (ctx: RequestContext, path: string) =>
  new DebianError(404, `'${path}' is not in '${ctx.repository.key}'`);

/** A local repository's index document: stored (Release, Packages), signed on read, or found by digest. */
async function serveLocalIndex(
  request: FormatRequest,
  reply: FastifyReply,
  ctx: RequestContext,
  p: IndexPath,
) {
  if (p.kind === 'key') return serveKey(request, reply, ctx, p.armored);
  if (p.kind === 'release') {
    const release = await ctx.stat(distPath(p.dist, 'Release'));
    if (!release) throw notFound(ctx, request.path);
    if (p.file === 'Release') return ctx.send(reply, release);
    return sendSigned(request, reply, ctx, await readFile(release, 'Release'), p.file);
  }
  if (p.kind === 'packages') {
    const path =
      p.dist === null
        ? distPath(null, p.file)
        : distPath(p.dist, `${binaryFolder(p.component, p.arch)}/${p.file}`);
    const file = await ctx.stat(path);
    if (!file) throw notFound(ctx, request.path);
    return ctx.send(reply, file);
  }
  const folder = distPath(p.dist, binaryFolder(p.component, p.arch));
  const prop = HASH_FOLDERS[p.algorithm];
  for (const name of ['Packages', 'Packages.gz']) {
    const file = await ctx.stat(`${folder}/${name}`);
    if (file && file[prop] === p.hash) return ctx.send(reply, file);
  }
  throw notFound(ctx, request.path);
}

/** A virtual's dist as merged from its members: the Release text and the index files it lists. */
interface MergedDist {
  release: Buffer;
  files: Map<string, Buffer>;
  at: number;
}

const MERGED_TTL_MS = 5_000;
/** Merged dists by `{virtual}\0{caller}\0{dist}`: the Release and the Packages apt fetches after it stay one set. */
const mergedCache = new Map<string, MergedDist>();

/** A member's index file as text: a local member's stored one, a remote's fetched (and cached) one; null when absent. */
async function memberText(m: RepositoryHandle, path: string): Promise<Buffer | null> {
  if (m.repository.rclass === 'local') {
    if (!(await m.can('read', path))) return null;
    const f = await m.stat(path);
    return f ? readFile(f, path) : null;
  }
  const f = await m.get(path);
  return f ? readFile(f, path) : null;
}

/** A member's Packages of a folder, whichever of `Packages.gz` and `Packages` it offers. */
async function memberPackages(m: RepositoryHandle, folder: string): Promise<Paragraph[]> {
  const at = (name: string) => (folder ? `${folder}/${name}` : name);
  const gz = await memberText(m, at('Packages.gz'));
  let text: Buffer | null = null;
  if (gz) {
    try {
      text = gunzipSync(gz, { maxOutputLength: MAX_INDEX_BYTES });
    } catch (err) {
      throw new UpstreamError(
        `${m.repository.key}: ${folder}/Packages.gz is not readable (${(err as Error).message})`,
      );
    }
  } else text = await memberText(m, at('Packages'));
  if (!text) return [];
  try {
    return parseParagraphs(text.toString('utf8'));
  } catch (err) {
    throw new UpstreamError(
      `${m.repository.key}: ${folder}/Packages is malformed (${(err as Error).message})`,
    );
  }
}

async function tolerant<T>(
  ctx: RequestContext,
  m: RepositoryHandle,
  what: string,
  fn: () => Promise<T>,
): Promise<T | null> {
  try {
    return await fn();
  } catch (err) {
    if (!isServerError(err)) throw err;
    ctx.log.warn({ member: m.repository.key, what, err: (err as Error).message }, 'debian member failed');
    return null;
  }
}

const debianMembers = async (ctx: RequestContext) => {
  const members = (await ctx.members()).filter(
    (m) => m.repository.packageType === ctx.repository.packageType,
  );
  return [
    ...members.filter((m) => m.repository.rclass === 'local'),
    ...members.filter((m) => m.repository.rclass === 'remote'),
  ];
};

/**
 * A virtual repository's dist (`null`: the flat layout): the Packages of its members merged, local
 * members first — a package (name, version, architecture) listed by an earlier member hides the same
 * from a later one, and a package name a local member holds is never taken from a remote member that
 * guards against namespace confusion — under a Release of the virtual's own, signed with its key.
 */
async function mergedDist(ctx: RequestContext, dist: string | null): Promise<MergedDist | null> {
  // A change on this node (its generation) makes a new one at once; upstream changes within the TTL.
  const cacheKey = `${ctx.repository.key}\0${ctx.principal?.name ?? ''}\0${dist ?? ''}\0${ctx.generation?.() ?? ''}`;
  const cached = mergedCache.get(cacheKey);
  if (cached && Date.now() - cached.at < MERGED_TTL_MS) return cached;
  const members = await debianMembers(ctx);
  const byFolder = new Map<string, Paragraph[]>();
  const seen = new Set<string>();
  const localNames = new Set<string>();
  const components = new Set<string>();
  const architectures = new Set<string>();
  let date: Date | null = null;
  let found = false;
  for (const m of members) {
    const local = m.repository.rclass === 'local';
    const guarded = !local && m.repository.remote?.namespaceConfusionProtection !== false;
    const folders: string[] = [];
    if (dist === null) folders.push('');
    else {
      const release = await tolerant(ctx, m, `${dist} Release`, () =>
        memberText(m, distPath(dist, 'Release')),
      );
      if (!release) continue;
      const text = release.toString('utf8');
      const d = releaseDate(text);
      if (d && (!date || d > date)) date = d;
      const comps = releaseList(text, 'Components');
      const archs = releaseList(text, 'Architectures');
      for (const c of comps) components.add(c);
      for (const a of archs) architectures.add(a);
      for (const c of comps) for (const a of archs) folders.push(binaryFolder(c, a));
      found = true;
    }
    for (const folder of folders) {
      const where = dist === null ? FLAT : distPath(dist, folder);
      const paragraphs = await tolerant(ctx, m, `${where}/Packages`, () => memberPackages(m, where));
      if (!paragraphs) continue;
      if (dist === null && paragraphs.length) found = true;
      const list = byFolder.get(folder) ?? [];
      byFolder.set(folder, list);
      for (const p of paragraphs) {
        const name = field(p, 'Package');
        if (!name || !field(p, 'Filename')) continue;
        if (local) localNames.add(name);
        else if (guarded && localNames.has(name)) continue;
        const id = `${folder}\0${name}\0${field(p, 'Version')}\0${field(p, 'Architecture')}`;
        if (seen.has(id)) continue;
        seen.add(id);
        list.push(p);
      }
    }
  }
  if (!found) return null;
  const files = new Map<string, Buffer>();
  for (const [folder, paragraphs] of byFolder) {
    const { Packages, 'Packages.gz': gz } = packagesFiles(
      paragraphs.map((control) => ({
        control,
        filename: field(control, 'Filename')!,
        size: Number(field(control, 'Size') ?? 0),
        md5: field(control, 'MD5sum') ?? '',
        sha1: field(control, 'SHA1') ?? '',
        sha256: field(control, 'SHA256') ?? '',
      })),
    );
    files.set(folder ? `${folder}/Packages` : 'Packages', Packages);
    files.set(folder ? `${folder}/Packages.gz` : 'Packages.gz', gz);
  }
  const release = Buffer.from(
    releaseText({
      origin: 'Granary',
      label: ctx.repository.key,
      dist,
      date: date ?? new Date(),
      architectures: [...architectures].sort(),
      components: [...components].sort(),
      description: dist ? `${ctx.repository.key} ${dist}` : undefined,
      files,
    }),
  );
  const merged = { release, files, at: Date.now() };
  mergedCache.set(cacheKey, merged);
  for (const [k, v] of mergedCache) if (Date.now() - v.at >= MERGED_TTL_MS) mergedCache.delete(k);
  return merged;
}

async function serveVirtualIndex(
  request: FormatRequest,
  reply: FastifyReply,
  ctx: RequestContext,
  p: IndexPath,
) {
  if (p.kind === 'key') return serveKey(request, reply, ctx, p.armored);
  await ctx.authorize('read', request.path);
  const merged = await mergedDist(ctx, p.dist);
  if (!merged) throw notFound(ctx, request.path);
  if (p.kind === 'release') {
    if (p.file === 'Release') return sendBytes(request, reply, merged.release, 'text/plain; charset=utf-8');
    return sendSigned(request, reply, ctx, merged.release, p.file);
  }
  if (p.kind === 'packages') {
    const rel = p.dist === null ? p.file : `${binaryFolder(p.component, p.arch)}/${p.file}`;
    const body = merged.files.get(rel);
    if (!body) throw notFound(ctx, request.path);
    return sendBytes(
      request,
      reply,
      body,
      p.file.endsWith('.gz') ? 'application/gzip' : 'text/plain; charset=utf-8',
    );
  }
  const folder = binaryFolder(p.component, p.arch);
  for (const name of ['Packages', 'Packages.gz']) {
    const body = merged.files.get(`${folder}/${name}`);
    if (body && digest(HASH_FOLDERS[p.algorithm], body) === p.hash)
      return sendBytes(
        request,
        reply,
        body,
        name.endsWith('.gz') ? 'application/gzip' : 'text/plain; charset=utf-8',
      );
  }
  throw notFound(ctx, request.path);
}

/** GET of an index document, a signature or the key, for the repository's class. */
export async function serveIndex(
  request: FormatRequest,
  reply: FastifyReply,
  ctx: RequestContext,
  p: IndexPath,
) {
  switch (ctx.repository.rclass) {
    case 'local':
      await ctx.authorize('read', request.path);
      return serveLocalIndex(request, reply, ctx, p);
    case 'virtual':
      return serveVirtualIndex(request, reply, ctx, p);
    default: {
      // A remote passes its upstream's documents through, signed by the upstream's own key.
      const file = await ctx.get(request.path);
      if (!file) throw notFound(ctx, request.path);
      return ctx.send(reply, file);
    }
  }
}

/** The SHA256 the remote's cached indexes give for a pool file, if any lists it. */
async function indexedSha256(h: RepositoryHandle, path: string): Promise<string | null> {
  const candidates = (await h.listFiles('dists')).filter((f) => /\/Packages(\.gz)?$/.test(f.path));
  for (const name of ['Packages.gz', 'Packages']) {
    const f = await h.stat(distPath(null, name));
    if (f) candidates.push(f);
  }
  const needle = `\nFilename: ${path}\n`;
  for (const f of candidates) {
    let bytes = await readFile(f, f.path);
    if (f.path.endsWith('.gz')) {
      try {
        bytes = gunzipSync(bytes, { maxOutputLength: MAX_INDEX_BYTES });
      } catch {
        continue;
      }
    }
    const text = `\n${bytes.toString('utf8')}`;
    const at = text.indexOf(needle);
    if (at < 0) continue;
    const start = text.lastIndexOf('\n\n', at) + 1;
    const end = text.indexOf('\n\n', at + 1);
    const paragraph = text.slice(start, end < 0 ? undefined : end);
    const sha = /^SHA256:\s*([0-9a-f]{64})\s*$/m.exec(paragraph)?.[1];
    if (sha) return sha;
  }
  return null;
}

/**
 * A remote's .deb: its cached copy, or fetched from the upstream and checked before it is cached —
 * against the SHA256 the upstream's own Packages (cached here) gives for it, or, for a file no cached
 * index lists, by reading it as a .deb whose control file agrees with its name. Null when the upstream has none.
 */
export async function remoteDeb(h: RepositoryHandle, path: string): Promise<FormatFile | null> {
  const cached = await h.stat(path);
  if (cached) return cached;
  if (h.repository.remote?.offline) return null;
  const sha256 = await indexedSha256(h, path);
  const res = await h.upstream(path, { stream: true });
  if (res.status !== 200) {
    res.stream?.destroy();
    if (res.status === 404 || res.status === 410) return null;
    throw new UpstreamError(`The upstream of '${h.repository.key}' answered ${res.status} for ${path}`);
  }
  // A SHA256 unlike the one the upstream's Packages gives is refused by the core (502, nothing cached).
  const file = await h.cache(
    path,
    res.stream ?? Readable.from([res.body]),
    sha256 ? { expected: { sha256 } } : {},
  );
  if (!sha256) {
    try {
      const info = await readDeb(await file.open());
      const named = poolName(path);
      if (named && named.name !== info.name) throw new Error(`it is ${info.name}, not ${named.name}`);
    } catch (err) {
      await h.delete(path, { permanent: true }).catch(() => 0);
      throw new UpstreamError(
        `The upstream of '${h.repository.key}' sent ${path} that is not a sound .deb (${(err as Error).message}): nothing was cached`,
      );
    }
  }
  return file;
}

/** GET of a .deb through a remote or a virtual (a local repository's are the core's plain files). */
export async function serveDeb(reply: FastifyReply, ctx: RequestContext, path: string) {
  await ctx.authorize('read', path);
  if (ctx.repository.rclass === 'remote') {
    const file = await remoteDeb(ctx, path);
    if (!file) throw notFound(ctx, path);
    return ctx.send(reply, file);
  }
  const members = await debianMembers(ctx);
  for (const m of members) {
    if (!(await m.can('read', path))) continue;
    const file =
      m.repository.rclass === 'local'
        ? await m.stat(path)
        : await tolerant(ctx, m, path, () => remoteDeb(m, path));
    if (file) return ctx.send(reply, file);
  }
  throw notFound(ctx, path);
}
