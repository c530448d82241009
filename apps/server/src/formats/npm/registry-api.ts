import { gunzipSync } from 'node:zlib';
import type { FastifyReply } from 'fastify';
import type { FormatRequest, RepositoryHandle, RequestContext } from '../sdk/format.ts';
import { localPackument, type Packument, packumentOf } from './index-builder.ts';
import { META_ROOT } from './names.ts';
import { NpmError, readBody, readJsonBody, setTag } from './publish.ts';

const json = (reply: FastifyReply, status: number, body: unknown) =>
  reply.code(status).type('application/json; charset=utf-8').header('cache-control', 'no-store').send(body);

const isObject = (v: unknown): v is Record<string, unknown> =>
  !!v && typeof v === 'object' && !Array.isArray(v);

/**
 * `npm login` (legacy, `--auth-type=legacy`): `PUT /-/user/org.couchdb.user:{name}` with the name and
 * password; the answer's token is what npm saves as `_authToken`. The password is checked by the
 * core (throttled, audited); the token is a revocable access token.
 */
async function legacyLogin(request: FormatRequest, reply: FastifyReply, ctx: RequestContext, user: string) {
  const body = await readJsonBody(request.body);
  if (!isObject(body) || typeof body.password !== 'string')
    throw new NpmError(400, 'A name and a password are required');
  const name = typeof body.name === 'string' ? body.name : user;
  if (name !== user) throw new NpmError(400, `The document names user '${name}', not '${user}'`);
  const principal = await ctx.login(name, body.password);
  if (!principal) throw new NpmError(401, 'Bad username or password');
  const { token } = await ctx.issueToken({ description: `npm login (${ctx.repository.key})`, principal });
  return json(reply, 201, { ok: true, id: `org.couchdb.user:${name}`, rev: '1', token });
}

/**
 * `npm login` (web, npm's default): `POST /-/v1/login` opens a CLI registration (the console's
 * `/ui/login/cli-registration` page, where the user signs in and confirms) and answers npm's
 * `{loginUrl, doneUrl}`; npm polls `doneUrl`: 202 with Retry-After while pending, then 200 `{token}`.
 */
async function webLogin(request: FormatRequest, reply: FastifyReply, ctx: RequestContext) {
  await readBody(request.body, 64 * 1024);
  const { session, url } = await ctx.openCliLogin(`npm (${ctx.repository.key})`);
  const page = new URL(url);
  return json(reply, 200, {
    loginUrl: `${ctx.baseUrl}${page.pathname}${page.search}`,
    doneUrl: `${ctx.repositoryUrl}/-/v1/done?session=${encodeURIComponent(session)}`,
  });
}

async function webLoginDone(request: FormatRequest, reply: FastifyReply, ctx: RequestContext) {
  const polled = await ctx.pollCliLogin(request.query.session ?? '');
  if (polled?.status === 'pending') return json(reply.header('retry-after', '1'), 202, {});
  if (!polled) throw new NpmError(404, 'This login session is unknown or has expired');
  return json(reply, 200, { token: polled.token, username: polled.username });
}

/**
 * `npm logout`: `DELETE /-/user/token/{token}`, sent with that same token. Only the token the request
 * authenticates with can be revoked this way (others are revoked in the console).
 */
async function revokeOwnToken(
  request: FormatRequest,
  reply: FastifyReply,
  ctx: RequestContext,
  token: string,
) {
  const used = /^Bearer\s+(\S+)\s*$/i.exec(String(request.headers.authorization ?? ''))?.[1];
  if (!ctx.principal) throw new NpmError(401, 'You are not signed in');
  if (used !== token || !(await ctx.revokeCallerToken()))
    throw new NpmError(
      404,
      'Token not found: only the token this request is signed in with can be revoked here',
    );
  return json(reply, 200, { ok: true });
}

/** Package names stored in a local repository (`.npm/{name}` and `.npm/@scope/{name}`), at most `max`. */
async function localNames(ctx: RepositoryHandle, max: number): Promise<string[]> {
  const names: string[] = [];
  for (const entry of await ctx.list(META_ROOT)) {
    if (!entry.folder) continue;
    if (!entry.name.startsWith('@')) names.push(entry.name);
    else
      for (const inner of await ctx.list(`${META_ROOT}/${entry.name}`))
        if (inner.folder) names.push(`${entry.name}/${inner.name}`);
    if (names.length >= max) break;
  }
  return names.slice(0, max);
}

interface SearchObject {
  package: Record<string, unknown> & { name: string };
  score: { final: number; detail: { quality: number; popularity: number; maintenance: number } };
  searchScore: number;
}

const SEARCH_SCAN_LIMIT = 5000;

function searchObject(p: Packument, score: number): SearchObject {
  const latest = p.versions[p['dist-tags'].latest ?? ''] ?? Object.values(p.versions).at(-1);
  const keywords = Array.isArray(latest?.keywords) ? latest.keywords : [];
  const publisher = p.maintainers?.[0]?.name;
  return {
    package: {
      name: p.name,
      scope: p.name.startsWith('@') ? p.name.slice(1, p.name.indexOf('/')) : 'unscoped',
      version: latest?.version ?? '',
      description: p.description ?? (typeof latest?.description === 'string' ? latest.description : ''),
      keywords,
      date: p.time.modified ?? p.time.created,
      links: {},
      publisher: publisher ? { username: publisher } : undefined,
      maintainers: (p.maintainers ?? []).map((m) => ({ username: m.name })),
    },
    score: { final: score, detail: { quality: score, popularity: score, maintenance: score } },
    searchScore: score,
  };
}

async function searchMember(ctx: RepositoryHandle, text: string, want: number): Promise<SearchObject[]> {
  if (ctx.repository.rclass === 'remote') {
    const res = await ctx.upstream(`-/v1/search?text=${encodeURIComponent(text)}&size=${want}`, {
      headers: { accept: 'application/json' },
      maxBytes: 16 * 1024 * 1024,
    });
    if (res.status !== 200) return [];
    const body = JSON.parse(res.body.toString('utf8')) as { objects?: SearchObject[] };
    return Array.isArray(body.objects)
      ? body.objects.filter((o) => typeof o?.package?.name === 'string')
      : [];
  }
  const terms = text.toLowerCase().split(/\s+/).filter(Boolean);
  const found: SearchObject[] = [];
  for (const name of await localNames(ctx, SEARCH_SCAN_LIMIT)) {
    const nameHit = terms.every((t) => name.includes(t));
    const p = await localPackument(ctx, name);
    if (!p) continue;
    const latest = p.versions[p['dist-tags'].latest ?? ''];
    const haystack = [
      name,
      p.description ?? '',
      ...(Array.isArray(latest?.keywords) ? (latest.keywords as unknown[]).map(String) : []),
    ]
      .join(' ')
      .toLowerCase();
    if (!nameHit && !terms.every((t) => haystack.includes(t))) continue;
    const score = terms.length === 1 && name === terms[0] ? 1 : nameHit ? 0.8 : 0.5;
    found.push(searchObject(p, score));
  }
  return found;
}

/** `npm search` (`GET /-/v1/search?text=&size=&from=`): names, descriptions and keywords; remotes ask their upstream. */
async function search(request: FormatRequest, reply: FastifyReply, ctx: RequestContext) {
  const text = (request.query.text ?? '').slice(0, 200);
  const size = Math.min(Math.max(Number(request.query.size) || 20, 1), 250);
  const from = Math.max(Number(request.query.from) || 0, 0);
  const members = ctx.repository.rclass === 'virtual' ? await ctx.members() : [ctx];
  if (ctx.repository.rclass !== 'virtual') await ctx.authorize('read', '');
  const seen = new Set<string>();
  const objects: SearchObject[] = [];
  for (const m of members) {
    let found: SearchObject[] = [];
    try {
      found = await searchMember(m, text, from + size);
    } catch (err) {
      ctx.log.warn({ member: m.repository.key, err: (err as Error).message }, 'npm search: member skipped');
    }
    for (const o of found) {
      if (seen.has(o.package.name)) continue;
      seen.add(o.package.name);
      objects.push(o);
    }
  }
  objects.sort((a, b) => b.searchScore - a.searchScore);
  return json(reply, 200, {
    objects: objects.slice(from, from + size),
    total: objects.length,
    time: new Date().toUTCString(),
  });
}

/**
 * `npm audit` and the audit npm install runs. The bulk query of a local repository is answered from
 * the advisory database (issue 16, `ctx.advisories`); a remote repository, or a virtual repository
 * through its first remote member, forwards the query to its upstream (the public registry answers
 * real advisories), a virtual one adding its local part's; otherwise, or when the upstream fails, what
 * the database found or an empty report — never an error that breaks the install.
 */
async function audit(request: FormatRequest, reply: FastifyReply, ctx: RequestContext, rest: string) {
  const body = await readBody(request.body, 64 * 1024 * 1024);
  const quick = rest !== 'npm/v1/security/advisories/bulk';
  // issue 16: a local repository (and a virtual one's local part) answers from the advisory database
  const own =
    !quick && ctx.advisories && ctx.repository.rclass !== 'remote'
      ? await ctx.advisories.npmBulk(bulkQuery(body, request.headers['content-encoding']))
      : {};
  const remote =
    ctx.repository.rclass === 'remote'
      ? ctx
      : ctx.repository.rclass === 'virtual'
        ? (await ctx.members()).find((m) => m.repository.rclass === 'remote')
        : undefined;
  if (remote) {
    try {
      const headers: Record<string, string> = { accept: 'application/json' };
      for (const h of ['content-type', 'content-encoding']) {
        const v = request.headers[h];
        if (typeof v === 'string') headers[h] = v;
      }
      const res = await remote.upstream(`-/${rest}`, {
        method: 'POST',
        body,
        headers,
        maxBytes: 32 * 1024 * 1024,
      });
      if (res.status === 200) {
        const answer = JSON.parse(res.body.toString('utf8')) as unknown;
        if (isObject(answer)) return json(reply, 200, quick ? answer : mergeBulk(answer, own));
      }
      ctx.log.info(
        { upstream: remote.repository.key, status: res.status },
        'npm audit: upstream gave no report',
      );
    } catch (err) {
      ctx.log.warn(
        { upstream: remote.repository.key, err: (err as Error).message },
        'npm audit: upstream failed',
      );
    }
  }
  if (!quick) return json(reply, 200, own);
  return json(reply, 200, {
    actions: [],
    advisories: {},
    muted: [],
    metadata: {
      vulnerabilities: { info: 0, low: 0, moderate: 0, high: 0, critical: 0 },
      dependencies: 0,
      devDependencies: 0,
      optionalDependencies: 0,
      totalDependencies: 0,
    },
  });
}

/** The bulk audit's `{name: [versions]}` (npm gzips it); an unreadable body asks about nothing. */
function bulkQuery(body: Buffer, encoding: string | string[] | undefined): Record<string, string[]> {
  try {
    const text = encoding === 'gzip' ? gunzipSync(body, { maxOutputLength: 64 * 1024 * 1024 }) : body;
    const parsed = JSON.parse(text.toString('utf8')) as unknown;
    if (!isObject(parsed)) return {};
    const out: Record<string, string[]> = {};
    for (const [name, versions] of Object.entries(parsed))
      if (Array.isArray(versions)) out[name] = versions.filter((v): v is string => typeof v === 'string');
    return out;
  } catch {
    return {};
  }
}

/** An upstream's bulk answer and the advisory database's, per package name, each advisory once. */
function mergeBulk(upstream: Record<string, unknown>, own: Record<string, unknown[]>) {
  const out: Record<string, unknown> = { ...upstream };
  for (const [name, list] of Object.entries(own)) {
    const theirs = Array.isArray(out[name]) ? (out[name] as { url?: unknown }[]) : [];
    const urls = new Set(theirs.map((a) => a?.url));
    out[name] = [...theirs, ...list.filter((a) => !urls.has((a as { url?: unknown }).url))];
  }
  return out;
}

/** `/-/package/{name}/dist-tags[/{tag}]`: `npm dist-tag ls|add|rm`. */
async function distTags(request: FormatRequest, reply: FastifyReply, ctx: RequestContext, rest: string) {
  const m = /^package\/((?:@[^/]+\/)?[^/@][^/]*)\/dist-tags(?:\/([^/]+))?$/.exec(rest);
  if (!m) return false;
  const name = m[1]!;
  const tag = m[2] ? decodeURIComponent(m[2]) : undefined;
  if (request.method === 'GET' && !tag) {
    await ctx.authorize('read', name);
    const p = await packumentOf(ctx, name);
    if (!p) throw new NpmError(404, `Package '${name}' not found`);
    return json(reply, 200, p['dist-tags']);
  }
  if (!tag) return false;
  if (request.method === 'PUT' || request.method === 'POST') {
    const version = await readJsonBody(request.body);
    if (typeof version !== 'string') throw new NpmError(400, 'The body must be a version, as a JSON string');
    return json(reply, 201, { ok: true, 'dist-tags': await setTag(ctx, name, tag, version) });
  }
  if (request.method === 'DELETE')
    return json(reply, 200, { ok: true, 'dist-tags': await setTag(ctx, name, tag, null) });
  return false;
}

/** Everything under `/-/`: login, whoami, ping, search, audit, dist-tags. */
export async function registryApi(
  request: FormatRequest,
  reply: FastifyReply,
  ctx: RequestContext,
  rest: string,
): Promise<unknown> {
  const method = request.method;
  const user = /^user\/org\.couchdb\.user:([^/]+)$/.exec(rest);
  if (user && method === 'PUT') return legacyLogin(request, reply, ctx, decodeURIComponent(user[1]!));
  if (rest === 'v1/login' && method === 'POST') return webLogin(request, reply, ctx);
  const logout = /^user\/token\/(.+)$/.exec(rest);
  if (logout && method === 'DELETE')
    return revokeOwnToken(request, reply, ctx, decodeURIComponent(logout[1]!));
  if (rest === 'v1/done' && method === 'GET') return webLoginDone(request, reply, ctx);
  if (rest === 'whoami' && method === 'GET') {
    if (!ctx.principal) throw new NpmError(401, 'You are not signed in');
    return json(reply, 200, { username: ctx.principal.name });
  }
  if (rest === 'ping' && (method === 'GET' || method === 'HEAD')) return json(reply, 200, {});
  if (rest === 'v1/search' && method === 'GET') return search(request, reply, ctx);
  if (method === 'POST' && /^npm\/v1\/security\/(advisories\/bulk|audits(\/quick)?)$/.test(rest))
    return audit(request, reply, ctx, rest);
  if (rest.startsWith('package/')) return distTags(request, reply, ctx, rest);
  return false;
}
