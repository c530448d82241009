import type { FastifyReply } from 'fastify';
import { httpStatusOf } from '../../platform/http/error-status.ts';
import type {
  FormatFile,
  FormatRepository,
  FormatRequest,
  RepositoryHandle,
  RequestContext,
  StoredFile,
} from '../sdk/format.ts';
import { readBounded } from './archive.ts';
import {
  type DistLink,
  negotiate,
  parseProjectHtml,
  parseRootHtml,
  renderProjectHtml,
  renderProjectJson,
  renderRootHtml,
  renderRootJson,
} from './index-builder.ts';
import { METADATA_SUFFIX, normalizeName, parseDistFilename } from './names.ts';
import { pypiError, sendDocument } from './respond.ts';

/**
 * The simple repository API of local, remote and virtual repositories.
 *
 * Local: projects are the folders `packages/{normalised name}/`; a page lists the wheels and sdists
 * below one, with the `.metadata` file beside a wheel (stored at upload), `pypi.requires_python` and
 * `pypi.yanked` properties.
 * Remote: the upstream's HTML pages are cached as `simple/{name}/index.html` (revalidated after the
 * retrieval cache period) and their links rewritten to this repository: a file under the upstream's
 * URL keeps its path (the core fetches and caches it as for any path); a file elsewhere (PyPI's
 * files.pythonhosted.org) is served at `.pypi-external/{name}/{file}`.
 * Virtual: members' pages merged, first member wins per file name; a project any local member holds
 * is served from local members only (dependency confusion).
 */

export const EXTERNAL = '.pypi-external';
const PAGE_BYTES = 64 * 1024 * 1024;

export const PROPERTY = {
  requiresPython: 'pypi.requires_python',
  yanked: 'pypi.yanked',
  name: 'pypi.name',
  version: 'pypi.version',
} as const;

/** Path segments percent-encoded for a URL. */
const encodePath = (path: string) => path.split('/').map(encodeURIComponent).join('/');

/** The index root of a remote URL: `https://pypi.org` and `https://pypi.org/simple` both name it. */
export function indexBase(remoteUrl: string): string {
  return remoteUrl.replace(/\/+$/, '').replace(/\/simple$/, '');
}

/** remote: the upstream URL of a repository path (cached pages map back to the upstream's page URLs). */
export function upstreamUrlOf(remoteUrl: string, path: string): string {
  const base = indexBase(remoteUrl);
  if (path === 'simple/index.html') return `${base}/simple/`;
  const page = /^simple\/([^/]+)\/index\.html$/.exec(path);
  if (page) return `${base}/simple/${page[1]}/`;
  return `${base}/${path.split('/').map(encodeURIComponent).join('/')}`;
}

function yankedOf(properties: Record<string, string[]>): string | true | undefined {
  const value = properties[PROPERTY.yanked];
  if (!value) return undefined;
  return value[0] ? value[0] : true;
}

/** A local repository's links for a project (files the caller may read), or null when it has none. */
async function localLinks(
  ctx: RepositoryHandle,
  project: string,
  linkBase: string,
): Promise<DistLink[] | null> {
  const files = await ctx.listFiles(`packages/${project}`);
  const byPath = new Map<string, FormatFile>(files.map((f) => [f.path, f]));
  const links: DistLink[] = [];
  let any = false;
  for (const f of files) {
    const filename = f.path.split('/').at(-1)!;
    if (filename.endsWith(METADATA_SUFFIX)) continue;
    const dist = parseDistFilename(filename);
    if (!dist || normalizeName(dist.name) !== project) continue;
    any = true;
    if (!(await ctx.can('read', f.path))) continue;
    const meta = byPath.get(`${f.path}${METADATA_SUFFIX}`);
    const requiresPython = f.properties[PROPERTY.requiresPython]?.[0];
    const yanked = yankedOf(f.properties);
    links.push({
      filename,
      url: `${linkBase}/${encodePath(f.path)}`,
      hashes: { sha256: f.sha256 },
      ...(requiresPython ? { requiresPython } : {}),
      ...(meta ? { metadata: { sha256: meta.sha256 } } : {}),
      ...(yanked !== undefined ? { yanked } : {}),
      size: f.size,
      uploadTime: f.createdAt.toISOString(),
    });
  }
  if (!any) return null;
  return links.sort((a, b) => (a.filename < b.filename ? -1 : a.filename > b.filename ? 1 : 0));
}

async function readPage(file: StoredFile): Promise<string> {
  return (await readBounded(await file.open(), PAGE_BYTES)).toString('utf8');
}

/** Where an upstream file is served in the remote repository (see the module comment). */
export function remotePathOf(url: string, base: string, project: string, filename: string): string {
  try {
    const u = new URL(url);
    const b = new URL(`${base}/`);
    if (u.origin === b.origin && u.pathname.startsWith(b.pathname) && !u.search) {
      const rel = u.pathname
        .slice(b.pathname.length)
        .split('/')
        .map((s) => decodeURIComponent(s));
      if (rel.length > 0 && !rel.some((s) => s === '' || s === '.' || s === '..') && rel[0] !== 'simple')
        return rel.join('/');
    }
  } catch {
    /* not a URL this repository can map: served as an external file */
  }
  return `${EXTERNAL}/${project}/${filename}`;
}

/** The upstream's page of a project as it is (absolute upstream URLs), or null when the upstream has none. */
export async function upstreamPage(
  ctx: { repository: FormatRepository; get(path: string): Promise<StoredFile | null> },
  project: string,
) {
  const page = await ctx.get(`simple/${project}/index.html`);
  if (!page) return null;
  const base = indexBase(ctx.repository.remote?.url ?? ctx.repository.url ?? '');
  return { base, page: parseProjectHtml(await readPage(page), `${base}/simple/${project}/`, project) };
}

async function remoteLinks(
  ctx: RepositoryHandle,
  project: string,
  linkBase: string,
): Promise<DistLink[] | null> {
  const found = await upstreamPage(ctx, project);
  if (!found) return null;
  return found.page.files.map((f) => ({
    ...f,
    url: `${linkBase}/${encodePath(remotePathOf(f.url, found.base, project, f.filename))}`,
  }));
}

const isServerError = (err: unknown) => {
  const status = httpStatusOf(err) ?? (err as { status?: unknown }).status;
  return typeof status === 'number' && status >= 500;
};

/** A local project name claims it in a virtual repository: the members' local repositories holding it. */
async function claimedLocally(members: RepositoryHandle[], project: string): Promise<boolean> {
  for (const m of members)
    if (m.repository.rclass === 'local' && (await m.list(`packages/${project}`)).length > 0) return true;
  return false;
}

async function pypiMembers(ctx: RepositoryHandle): Promise<RepositoryHandle[]> {
  return (await ctx.members()).filter((m) => m.repository.packageType === ctx.repository.packageType);
}

/** The links of a project in any repository class, or null when no one has it. */
export async function projectLinks(
  ctx: RepositoryHandle,
  project: string,
  linkBase: string,
): Promise<DistLink[] | null> {
  if (ctx.repository.rclass === 'local') return localLinks(ctx, project, linkBase);
  if (ctx.repository.rclass === 'remote') return remoteLinks(ctx, project, linkBase);
  const members = await pypiMembers(ctx);
  const local = await claimedLocally(members, project);
  const merged = new Map<string, DistLink>();
  let found = false;
  for (const member of members) {
    if (local && member.repository.rclass !== 'local') continue;
    let links: DistLink[] | null;
    try {
      links = await projectLinks(member, project, linkBase);
    } catch (err) {
      // A failing upstream leaves the other members to answer.
      if (!isServerError(err)) throw err;
      ctx.log.warn(
        { member: member.repository.key, project, err: (err as Error).message },
        'member page failed',
      );
      continue;
    }
    if (!links) continue;
    found = true;
    for (const link of links) if (!merged.has(link.filename)) merged.set(link.filename, link);
  }
  return found ? [...merged.values()] : null;
}

async function projectNames(ctx: RepositoryHandle): Promise<string[]> {
  if (ctx.repository.rclass === 'local')
    return (await ctx.list('packages')).filter((c) => c.folder).map((c) => c.name);
  if (ctx.repository.rclass === 'remote') {
    const page = await ctx.get('simple/index.html');
    return page ? parseRootHtml(await readPage(page)).map(normalizeName) : [];
  }
  const names = new Set<string>();
  for (const member of await pypiMembers(ctx)) {
    try {
      for (const n of await projectNames(member)) names.add(n);
    } catch (err) {
      if (!isServerError(err)) throw err;
    }
  }
  return [...names];
}

/**
 * Rendered pages, per repository, document, form and caller (pages list only what the caller may
 * read): fresh while no artifact changed on this node, and for at most a second (other nodes' changes).
 */
const PAGE_TTL_MS = 1_000;
const PAGE_CACHE_MAX = 10_000;
const pages = new Map<string, { gen: number; at: number; body: string | null }>();

async function cachedPage(
  ctx: RequestContext,
  key: string,
  render: () => Promise<string | null>,
): Promise<string | null> {
  const id = `${ctx.repositoryUrl}\u0000${key}\u0000${ctx.principal?.name ?? ''}`;
  const gen = ctx.generation?.();
  const now = Date.now();
  const hit = pages.get(id);
  if (gen !== undefined && hit && hit.gen === gen && now - hit.at < PAGE_TTL_MS) return hit.body;
  const body = await render();
  if (gen !== undefined && ctx.generation?.() === gen) {
    if (pages.size >= PAGE_CACHE_MAX) pages.clear();
    pages.set(id, { gen, at: now, body });
  }
  return body;
}

export async function serveRoot(req: FormatRequest, reply: FastifyReply, ctx: RequestContext) {
  const kind = negotiate(req.headers.accept as string | undefined, req.query.format);
  if (!kind) return pypiError(reply, 406, 'Not acceptable: this index serves PEP 691 JSON and PEP 503 HTML');
  await ctx.authorize('read', '');
  const body = await cachedPage(ctx, `/${kind}`, async () => {
    const names = [...new Set(await projectNames(ctx))].sort();
    return kind === 'json' ? renderRootJson(names) : renderRootHtml(names, ctx.repositoryUrl);
  });
  return sendDocument(req, reply, kind, body ?? '');
}

export async function serveProject(
  req: FormatRequest,
  reply: FastifyReply,
  ctx: RequestContext,
  project: string,
) {
  const kind = negotiate(req.headers.accept as string | undefined, req.query.format);
  if (!kind) return pypiError(reply, 406, 'Not acceptable: this index serves PEP 691 JSON and PEP 503 HTML');
  if (ctx.repository.rclass !== 'remote') await ctx.authorize('read', `packages/${project}`);
  const body = await cachedPage(ctx, `${project}/${kind}`, async () => {
    const links = await projectLinks(ctx, project, ctx.repositoryUrl);
    if (!links) return null;
    const page = { name: project, files: links };
    return kind === 'json' ? renderProjectJson(page) : renderProjectHtml(page);
  });
  if (body === null)
    return pypiError(reply, 404, `No project '${project}' in repository '${ctx.repository.key}'`);
  return sendDocument(req, reply, kind, body);
}

/**
 * remote: a file the upstream serves outside its index URL (`.pypi-external/{project}/{file}`): found
 * through the cached project page, fetched once, cached with the page's sha256 verified. null when
 * the upstream page does not list it.
 */
async function externalFile(
  ctx: RepositoryHandle,
  project: string,
  filename: string,
): Promise<FormatFile | null> {
  const path = `${EXTERNAL}/${project}/${filename}`;
  await ctx.authorize('read', path);
  const cached = await ctx.stat(path);
  if (cached) return cached;
  const isMetadata = filename.endsWith(METADATA_SUFFIX);
  const distName = isMetadata ? filename.slice(0, -METADATA_SUFFIX.length) : filename;
  const found = await upstreamPage(ctx, project);
  const link = found?.page.files.find((f) => f.filename === distName);
  if (!link || (isMetadata && !link.metadata)) return null;
  // Streamed into the cache, never whole in memory; verified against the page's sha256 as it lands.
  const res = await ctx.upstream(`${link.url}${isMetadata ? METADATA_SUFFIX : ''}`, { stream: true });
  if (res.status !== 200) res.stream?.destroy();
  if (res.status === 404 || res.status === 410) return null;
  if (res.status !== 200) {
    const err = new Error(`The upstream of '${ctx.repository.key}' answered ${res.status}`);
    Object.assign(err, { status: 502, statusCode: 502 });
    throw err;
  }
  const hashes = isMetadata ? (link.metadata === true ? {} : (link.metadata ?? {})) : link.hashes;
  return ctx.cache(path, res.stream ?? res.body, {
    expected: hashes.sha256 ? { sha256: hashes.sha256 } : {},
  });
}

/** GET of `.pypi-external/{project}/{file}` on a remote, or through a virtual's remote members. */
export async function serveExternal(
  reply: FastifyReply,
  ctx: RequestContext,
  project: string,
  filename: string,
): Promise<FastifyReply> {
  const notFound = () =>
    pypiError(
      reply,
      404,
      `'${EXTERNAL}/${project}/${filename}' not found in repository '${ctx.repository.key}'`,
    );
  if (ctx.repository.rclass === 'remote') {
    const file = await externalFile(ctx, project, filename);
    return file ? ctx.send(reply, file) : notFound();
  }
  if (ctx.repository.rclass !== 'virtual') return notFound();
  await ctx.authorize('read', `${EXTERNAL}/${project}/${filename}`);
  const members = await pypiMembers(ctx);
  if (await claimedLocally(members, project)) return notFound();
  for (const member of members) {
    if (member.repository.rclass !== 'remote') continue;
    try {
      const file = await externalFile(member, project, filename);
      if (file) return ctx.send(reply, file);
    } catch (err) {
      if (!isServerError(err)) throw err;
    }
  }
  return notFound();
}
