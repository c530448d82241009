import type { FastifyReply } from 'fastify';
import semver from 'semver';
import { readAtMost } from '../../platform/archives/bounded-archive.ts';
import { UpstreamError } from '../../platform/errors.ts';
import { httpStatusOf } from '../../platform/http/error-status.ts';
import type { FormatFile, RepositoryHandle, RequestContext } from '../sdk/format.ts';
import { MAX_ARCHIVE_BYTES, readModuleArchive, sniffArchive } from './archive.ts';
import { TerraformError } from './errors.ts';
import { membersFor, tolerant } from './members.ts';
import { moduleMetadata } from './metadata.ts';
import { type ModuleAddress, moduleFile, moduleFolder, moduleId, parseModulePath } from './names.ts';
import { DOC_BYTES, servicePath, upstreamJson, upstreamUrl } from './upstream.ts';

/**
 * The module registry protocol (https://developer.hashicorp.com/terraform/internals/module-registry-protocol):
 * `…/{namespace}/{name}/{system}/versions` and `…/{version}/download` (204 with `X-Terraform-Get`, the
 * archive's URL in this repository, which terraform fetches next with the same credentials).
 */

async function localVersions(h: RepositoryHandle, m: ModuleAddress): Promise<string[] | null> {
  const versions: string[] = [];
  for (const e of await h.list(moduleFolder(m))) {
    const at = !e.folder && parseModulePath(`${moduleFolder(m)}/${e.name}`);
    if (at && !versions.includes(at.version)) versions.push(at.version);
  }
  return versions.length ? versions : null;
}

async function remoteVersions(h: RepositoryHandle, m: ModuleAddress): Promise<string[] | null> {
  const doc = await upstreamJson(h, `${await servicePath(h, 'modules.v1')}${moduleFolder(m)}/versions`);
  const modules = doc?.modules;
  if (!Array.isArray(modules)) return null;
  const versions: string[] = [];
  for (const mod of modules as { versions?: { version?: unknown }[] }[])
    for (const v of mod?.versions ?? [])
      if (typeof v?.version === 'string' && semver.valid(v.version) && !versions.includes(v.version))
        versions.push(v.version);
  return versions;
}

const holds = async (local: RepositoryHandle, m: ModuleAddress) => (await localVersions(local, m)) !== null;

/** A repository's versions of a module (virtual: its members' merged, local first), or null when unknown. */
async function versionsOf(ctx: RepositoryHandle, m: ModuleAddress): Promise<string[] | null> {
  if (ctx.repository.rclass === 'local') return localVersions(ctx, m);
  if (ctx.repository.rclass === 'remote') return remoteVersions(ctx, m);
  let found: string[] | null = null;
  for (const member of await membersFor(ctx, (l) => holds(l, m))) {
    if (!(await member.can('read', `${moduleFolder(m)}/`))) continue;
    const v = await tolerant(ctx, member, () => versionsOf(member, m));
    if (v) found = [...(found ?? []), ...v.filter((x) => !found?.includes(x))];
  }
  return found;
}

const localFile = async (h: RepositoryHandle, m: ModuleAddress, version: string) =>
  (await h.stat(moduleFile(m, version, 'zip'))) ?? (await h.stat(moduleFile(m, version, 'tar.gz')));

/**
 * A remote's archive of a module version: cached, or found where the upstream's `download` answer
 * (`X-Terraform-Get`, or a JSON `location`) points (credentials go only to the upstream's origin),
 * checked as an upload is (an archive, no path escapes or links, the limits) and cached. Null when the
 * upstream has no such version.
 */
async function remoteFile(
  h: RepositoryHandle,
  m: ModuleAddress,
  version: string,
): Promise<FormatFile | null> {
  const cached = await localFile(h, m, version);
  if (cached) return cached;
  if (h.repository.remote?.offline) return null;
  const rel = `${await servicePath(h, 'modules.v1')}${moduleFolder(m)}/${version}/download`;
  const res = await h.upstream(rel, { maxBytes: DOC_BYTES });
  if (res.status === 404 || res.status === 410) return null;
  let location = res.headers.get('x-terraform-get');
  if (!location && res.status === 200)
    try {
      const loc = (JSON.parse(res.body.toString('utf8')) as { location?: unknown }).location;
      location = typeof loc === 'string' ? loc : null;
    } catch {
      location = null;
    }
  if (res.status >= 300 || !location)
    throw new UpstreamError(
      `The upstream of '${h.repository.key}' gave no download location for ${moduleId(m)} ${version} (${res.status})`,
    );
  const source = archiveLocation(location);
  if (!source)
    throw new UpstreamError(
      `The upstream of '${h.repository.key}' serves ${moduleId(m)} ${version} from '${location}', a source a remote repository cannot cache`,
    );
  const url = upstreamUrl(h, rel, source.url);
  const got = await h.upstream(url, { maxBytes: MAX_ARCHIVE_BYTES });
  if (got.status !== 200)
    throw new UpstreamError(
      `The upstream of '${h.repository.key}' answered ${got.status} for the archive of ${moduleId(m)} ${version}`,
    );
  const kind = sniffArchive(got.body);
  if (!kind)
    throw new UpstreamError(
      `The upstream of '${h.repository.key}' sent ${moduleId(m)} ${version} as neither a zip nor a gzipped tar`,
    );
  let metadata: ReturnType<typeof moduleMetadata>;
  try {
    const archive = await readModuleArchive(got.body, kind);
    metadata = moduleMetadata(m, version, archive);
    const root = archive.root;
    // the module must be the archive's root or its one top folder (a deeper subfolder is not cached)
    if (source.subdir && !(root && (source.subdir === '*' || source.subdir.replace(/\/+$/, '') === root)))
      throw new TerraformError(400, `the module is in '${source.subdir}' of the archive, not at its root`);
  } catch (err) {
    if (err instanceof TerraformError || httpStatusOf(err) === 400)
      throw new UpstreamError(
        `The upstream of '${h.repository.key}' sent an archive of ${moduleId(m)} ${version} that is refused: ${(err as Error).message}`,
      );
    throw err;
  }
  return h.cache(moduleFile(m, version, kind), got.body, { metadata });
}

/** A repository's archive of a module version (virtual: the first member's, local first), or null. */
async function fileOf(ctx: RepositoryHandle, m: ModuleAddress, version: string): Promise<FormatFile | null> {
  if (ctx.repository.rclass === 'local') return localFile(ctx, m, version);
  if (ctx.repository.rclass === 'remote') return remoteFile(ctx, m, version);
  for (const member of await membersFor(ctx, (l) => holds(l, m))) {
    if (!(await member.can('read', `${moduleFolder(m)}/`))) continue;
    const file = await tolerant(ctx, member, () => fileOf(member, m, version));
    if (file) return file;
  }
  return null;
}

/** Module archives' top-level module folder (or none) by content: what `//{root}` terraform is told. */
const roots = new Map<string, string | null>();

/** The one top-level folder an archive keeps its module in, or null (read once per content, then remembered). */
async function moduleRoot(file: FormatFile): Promise<string | null> {
  const known = roots.get(file.sha256);
  if (known !== undefined) return known;
  const at = parseModulePath(file.path);
  if (!at) return null;
  const bytes = await readAtMost(await file.open(), MAX_ARCHIVE_BYTES, file.path);
  const root = (await readModuleArchive(bytes, at.kind).catch(() => null))?.root ?? null;
  if (roots.size >= 10_000) roots.clear();
  roots.set(file.sha256, root);
  return root;
}

/**
 * Where a download location's archive is fetched from, and the subfolder (go-getter's `//sub`) the
 * module is in: an `http(s)` URL (go-getter's `http::` prefix dropped), or a GitHub `git::` source as
 * GitHub's own tarball of that ref (the registry.terraform.io modules; its one top folder is the
 * module: `*`). Other getters (git elsewhere, s3, gcs…) a remote cannot cache: null.
 */
export function archiveLocation(location: string): { url: string; subdir?: string } | null {
  const gh = /^git::https:\/\/github\.com\/([^/?#]+)\/([^/?#]+?)(?:\.git)?\?ref=([^&#]+)$/.exec(location);
  if (gh) return { url: `https://codeload.github.com/${gh[1]}/${gh[2]}/tar.gz/${gh[3]}`, subdir: '*' };
  const getter = /^([a-z0-9]+)::/i.exec(location)?.[1];
  if (getter && !/^https?$/i.test(getter)) return null;
  const url = location.replace(/^https?::/i, '');
  const scheme = /^[a-z]+:\/\//i.exec(url)?.[0].length ?? 0;
  const at = url.indexOf('//', scheme);
  if (at < 0) return { url };
  const query = url.indexOf('?', at);
  const subdir = decodeURIComponent(url.slice(at + 2, query < 0 ? undefined : query));
  return { url: url.slice(0, at) + (query < 0 ? '' : url.slice(query)), subdir };
}

const json = (reply: FastifyReply, body: unknown) =>
  reply.code(200).header('cache-control', 'no-cache').type('application/json').send(body);

export async function serveModuleVersions(reply: FastifyReply, ctx: RequestContext, m: ModuleAddress) {
  await ctx.authorize('read', `${moduleFolder(m)}/`);
  const versions = await versionsOf(ctx, m);
  if (!versions) throw new TerraformError(404, `Module ${moduleId(m)} not found in '${ctx.repository.key}'`);
  versions.sort(semver.compare);
  return json(reply, { modules: [{ versions: versions.map((version) => ({ version })) }] });
}

/** `…/{version}/download`: 204 with `X-Terraform-Get`, the archive's URL in this repository. */
export async function serveModuleDownload(
  reply: FastifyReply,
  ctx: RequestContext,
  m: ModuleAddress,
  version: string,
) {
  await ctx.authorize('read', `${moduleFolder(m)}/`);
  const file = await fileOf(ctx, m, version);
  if (!file)
    throw new TerraformError(404, `Module ${moduleId(m)} ${version} not found in '${ctx.repository.key}'`);
  // An archive whose module is in its one top-level folder: terraform is told to take that folder.
  const root = await moduleRoot(file);
  const subdir = root ? `//${encodeURIComponent(root)}` : '';
  return reply.code(204).header('x-terraform-get', `${ctx.repositoryUrl}/${file.path}${subdir}`).send();
}

/** A remote's or a virtual's module archive (X-Terraform-Get points here); false: let the core serve it. */
export async function serveModuleArchive(
  reply: FastifyReply,
  ctx: RequestContext,
  m: ModuleAddress,
  version: string,
  path: string,
) {
  await ctx.authorize('read', path);
  const file = await fileOf(ctx, m, version);
  if (!file || file.path !== path)
    throw new TerraformError(404, `'${path}' not found in '${ctx.repository.key}'`);
  return ctx.send(reply, file);
}
