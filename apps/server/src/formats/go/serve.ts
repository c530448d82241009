import type { FastifyReply } from 'fastify';
import { readAtMost } from '../../platform/archives/bounded-archive.ts';
import { httpStatusOf } from '../../platform/http/error-status.ts';
import type { RepositoryHandle, RequestContext } from '../sdk/format.ts';
import {
  escapePath,
  isCanonicalVersion,
  isPseudoVersion,
  latestOf,
  sortVersions,
  unescapePath,
  versionFile,
  versionsFolder,
} from './module.ts';
import { GoError, sendText } from './respond.ts';

/**
 * The GOPROXY protocol's documents (https://go.dev/ref/mod#goproxy-protocol) for the three classes.
 * Local: a version exists when its `.zip` is stored; `@v/list` lists the releases and pre-releases
 * (pseudo-versions are never listed, as proxy.golang.org does), sorted semantically; `@latest` is the
 * `.info` of the go command's own choice. Remote: the upstream's documents, cached (revalidated after
 * the retrieval cache period). Virtual: the members' lists merged; a module a local member holds is
 * answered by local members only (a remote cannot shadow a private module).
 */

const DOC_BYTES = 4 * 1024 * 1024;

const isServerError = (err: unknown) => {
  const status = httpStatusOf(err) ?? (err as { status?: unknown }).status;
  return typeof status === 'number' && status >= 500;
};

/** Every version a local repository holds of a module (pseudo-versions included). */
async function localVersions(repo: RepositoryHandle, module: string): Promise<string[] | null> {
  const entries = await repo.list(versionsFolder(module));
  if (entries.length === 0) return null;
  const versions: string[] = [];
  for (const e of entries) {
    if (e.folder || !e.name.endsWith('.zip')) continue;
    const v = unescapePath(e.name.slice(0, -4));
    if (v && isCanonicalVersion(v)) versions.push(v);
  }
  return versions.length ? versions : null;
}

async function readText(repo: RepositoryHandle, path: string): Promise<string | null> {
  const file = await repo.get(path);
  if (!file) return null;
  return (await readAtMost(await file.open(), DOC_BYTES, path)).toString('utf8');
}

async function goMembers(ctx: RepositoryHandle): Promise<RepositoryHandle[]> {
  return (await ctx.members()).filter((m) => m.repository.packageType === ctx.repository.packageType);
}

/** The members to ask about `module`: only the local ones when one of them holds it. */
async function membersFor(ctx: RepositoryHandle, module: string): Promise<RepositoryHandle[]> {
  const members = await goMembers(ctx);
  for (const m of members)
    if (m.repository.rclass === 'local' && (await m.list(versionsFolder(module))).length > 0)
      return members.filter((x) => x.repository.rclass === 'local');
  return members;
}

/**
 * A repository's versions of a module as `@v/list` gives them, and whether it knows the module.
 * A member whose upstream fails is skipped (the others answer).
 */
async function versionsOf(ctx: RepositoryHandle, module: string): Promise<string[] | null> {
  if (ctx.repository.rclass === 'local') return localVersions(ctx, module);
  if (ctx.repository.rclass === 'remote') {
    const text = await readText(ctx, `${versionsFolder(module)}/list`);
    return text === null
      ? null
      : text
          .split('\n')
          .map((l) => l.trim())
          .filter(Boolean);
  }
  let found: string[] | null = null;
  for (const m of await membersFor(ctx, module)) {
    try {
      const v = await versionsOf(m, module);
      if (v) found = [...(found ?? []), ...v];
    } catch (err) {
      if (!isServerError(err)) throw err;
      ctx.log.warn({ member: m.repository.key, module, err: (err as Error).message }, 'go member failed');
    }
  }
  return found;
}

export async function serveList(reply: FastifyReply, ctx: RequestContext, module: string) {
  await ctx.authorize('read', versionsFolder(module));
  const versions = await versionsOf(ctx, module);
  if (versions === null)
    throw new GoError(404, `not found: module ${module}: no versions in '${ctx.repository.key}'`);
  const listed = sortVersions(versions).filter((v) => !isPseudoVersion(v));
  return sendText(reply, 200, listed.map((v) => `${v}\n`).join(''));
}

/** The `.info` of a version as a repository answers it (stored, or from the member that has it). */
async function infoOf(ctx: RepositoryHandle, module: string, version: string): Promise<string> {
  const text = await readText(ctx, versionFile(module, version, 'info')).catch(() => null);
  return text ?? JSON.stringify({ Version: version });
}

/** A remote's or a member's `@latest` (the upstream's own answer), as a version. */
async function upstreamLatest(ctx: RepositoryHandle, module: string): Promise<string | null> {
  const text = await readText(ctx, `${escapePath(module)}/@latest`);
  if (!text) return null;
  try {
    const v = (JSON.parse(text) as { Version?: unknown }).Version;
    return typeof v === 'string' && isCanonicalVersion(v) ? v : null;
  } catch {
    return null;
  }
}

export async function serveLatest(reply: FastifyReply, ctx: RequestContext, module: string) {
  await ctx.authorize('read', `${escapePath(module)}/@latest`);
  const type = 'application/json';
  if (ctx.repository.rclass === 'remote') {
    const text = await readText(ctx, `${escapePath(module)}/@latest`);
    if (text === null) throw new GoError(404, `not found: ${module}@latest`);
    return sendText(reply, 200, text, type);
  }
  const candidates: string[] = [];
  const sources = ctx.repository.rclass === 'local' ? [ctx] : await membersFor(ctx, module);
  for (const m of sources) {
    try {
      if (m.repository.rclass === 'local') candidates.push(...((await localVersions(m, module)) ?? []));
      else {
        const listed = await versionsOf(m, module);
        if (listed?.length) candidates.push(...listed);
        else {
          const latest = await upstreamLatest(m, module);
          if (latest) candidates.push(latest);
        }
      }
    } catch (err) {
      if (!isServerError(err)) throw err;
    }
  }
  const latest = latestOf(candidates);
  if (!latest) throw new GoError(404, `not found: ${module}@latest`);
  return sendText(reply, 200, await infoOf(ctx, module, latest), type);
}

/**
 * `sumdb/{name}/…` (GOSUMDB through the proxy): a remote passes it to its upstream when the upstream
 * offers it; a virtual asks its remote members; a local repository has none (404: the go command then
 * asks the checksum database itself, or skips it for GONOSUMDB modules).
 */
export async function serveSumdb(reply: FastifyReply, ctx: RequestContext, path: string) {
  await ctx.authorize('read', path);
  const remotes =
    ctx.repository.rclass === 'remote'
      ? [ctx]
      : ctx.repository.rclass === 'virtual'
        ? (await goMembers(ctx)).filter((m) => m.repository.rclass === 'remote')
        : [];
  for (const r of remotes) {
    if (r.repository.remote?.offline) continue;
    try {
      const res = await r.upstream(path, { maxBytes: DOC_BYTES });
      if (res.status === 200)
        return reply
          .code(200)
          .header('cache-control', 'no-cache')
          .type(res.headers.get('content-type') ?? 'application/octet-stream')
          .send(res.body);
    } catch (err) {
      if (!isServerError(err)) throw err;
    }
  }
  throw new GoError(404, `not found: ${path} (no checksum database through '${ctx.repository.key}')`);
}
