import type { FastifyReply } from 'fastify';
import semver from 'semver';
import type { FormatRequest, RepositoryHandle, RequestContext } from '../sdk/format.ts';
import { CargoError } from './errors.ts';
import { isCrateName, parseCratePath } from './names.ts';
import { publishCrate, setYanked } from './publish.ts';

const json = (reply: FastifyReply, body: unknown, status = 200) =>
  reply.code(status).type('application/json; charset=utf-8').send(body);

interface Found {
  name: string;
  max_version: string;
  description: string | null;
}

/** The crates a local repository holds whose name contains `q` (case-insensitive), that the caller may read. */
async function searchLocal(m: RepositoryHandle, q: string): Promise<Found[]> {
  const byName = new Map<string, Found>();
  for (const file of await m.listFiles('crates')) {
    const at = parseCratePath(file.path);
    if (!at?.name.toLowerCase().includes(q)) continue;
    const found = byName.get(at.name);
    if (!found || semver.gt(at.version, found.max_version))
      byName.set(at.name, {
        name: at.name,
        max_version: at.version,
        description: file.properties['cargo.description']?.[0] ?? found?.description ?? null,
      });
  }
  const out: Found[] = [];
  for (const f of byName.values()) if (await m.can('read', `crates/${f.name}/`)) out.push(f);
  return out;
}

/** A remote's search: the upstream's own answer, as it came (crates.io's shape). */
async function searchRemote(m: RepositoryHandle, query: string): Promise<Found[]> {
  const res = await m.upstream(`api/v1/crates?${query}`, { maxBytes: 4 * 1024 * 1024 });
  if (res.status !== 200) return [];
  try {
    const doc = JSON.parse(res.body.toString('utf8')) as { crates?: Found[] };
    return (doc.crates ?? []).filter((c) => c && typeof c.name === 'string');
  } catch {
    return [];
  }
}

/** `cargo search` (`GET /api/v1/crates?q=&per_page=`): local crates first, then remotes' answers. */
async function search(request: FormatRequest, reply: FastifyReply, ctx: RequestContext) {
  await ctx.authorize('read', '');
  const q = (request.query.q ?? '').toLowerCase();
  const perPage = Math.min(Math.max(Number(request.query.per_page) || 10, 1), 100);
  const query = new URLSearchParams({ q, per_page: String(perPage) }).toString();
  const members = ctx.repository.rclass === 'virtual' ? await ctx.members() : [ctx];
  const crates: Found[] = [];
  for (const m of members) {
    const found =
      m.repository.rclass === 'remote'
        ? await searchRemote(m, query).catch(() => [])
        : await searchLocal(m, q);
    for (const f of found) if (!crates.some((c) => c.name === f.name)) crates.push(f);
  }
  crates.sort((a, b) => a.name.localeCompare(b.name));
  return json(reply, { crates: crates.slice(0, perPage), meta: { total: crates.length } });
}

/**
 * `cargo owner --list`: Granary has no owners of its own — who may publish is decided by permissions.
 * The list names the users who published the crate's versions; adding or removing owners is refused
 * with where to change permissions instead.
 */
async function owners(request: FormatRequest, reply: FastifyReply, ctx: RequestContext, name: string) {
  if (request.method !== 'GET')
    throw new CargoError(
      400,
      `Owners are Granary's permissions: give users or groups write permission on '${ctx.repository.key}' (Administration → Permissions) instead`,
    );
  await ctx.authorize('read', `crates/${name}/`);
  const target = ctx.repository.rclass === 'virtual' ? await ctx.deployContext() : ctx;
  const files = (await target.listFiles(`crates/${name}`)).filter(
    (f) => parseCratePath(f.path)?.name === name,
  );
  if (!files.length) throw new CargoError(404, `crate \`${name}\` not found in '${ctx.repository.key}'`);
  const logins = [...new Set(files.map((f) => f.createdBy))];
  return json(reply, { users: logins.map((login, i) => ({ id: i + 1, login, name: login })) });
}

/** The web API (`{api}/api/v1/…`): publish, yank and unyank, owners, search. False: not an API path. */
export async function cargoApi(
  request: FormatRequest,
  reply: FastifyReply,
  ctx: RequestContext,
  rest: string,
): Promise<FastifyReply | false> {
  const method = request.method;
  if (rest === 'crates/new') {
    if (method !== 'PUT') throw new CargoError(405, 'Publish with PUT (cargo publish)');
    return json(reply, await publishCrate(ctx, request.body, request.headers['content-length']));
  }
  if (rest === 'crates' && (method === 'GET' || method === 'HEAD')) return search(request, reply, ctx);
  const yank = /^crates\/([^/]+)\/([^/]+)\/(yank|unyank)$/.exec(rest);
  if (yank) {
    const [, name, version, what] = yank;
    if (!isCrateName(name!)) throw new CargoError(400, `Invalid crate name '${name}'`);
    if (what === 'yank' && method !== 'DELETE') throw new CargoError(405, 'Yank with DELETE');
    if (what === 'unyank' && method !== 'PUT') throw new CargoError(405, 'Unyank with PUT');
    return json(reply, await setYanked(ctx, name!, version!, what === 'yank'));
  }
  const owner = /^crates\/([^/]+)\/owners$/.exec(rest);
  if (owner) {
    if (!isCrateName(owner[1]!)) throw new CargoError(400, `Invalid crate name '${owner[1]}'`);
    return owners(request, reply, ctx, owner[1]!);
  }
  throw new CargoError(404, `'/api/v1/${rest}' is not part of the Cargo registry API`);
}
