import { createHash } from 'node:crypto';
import type { FastifyReply } from 'fastify';
import { UpstreamError } from '../../platform/errors.ts';
import { httpStatusOf } from '../../platform/http/error-status.ts';
import type { FormatFile, FormatRequest, RepositoryHandle, RequestContext } from '../sdk/format.ts';
import { CargoError } from './errors.ts';
import { type IndexEntry, localEntries, readIndexFile, renderIndex, sameVersion } from './index-file.ts';
import { crateFileOf, indexFileOf, localIndexPath } from './names.ts';

/** A member that failed with a server-side error is skipped (logged); a client error is the caller's answer. */
async function tolerant<T>(ctx: RequestContext, m: RepositoryHandle, what: string, fn: () => Promise<T>) {
  try {
    return await fn();
  } catch (err) {
    const status = httpStatusOf(err);
    if (status === undefined || status < 500) throw err;
    ctx.log.warn({ member: m.repository.key, what, err: (err as Error).message }, 'cargo member failed');
    return null;
  }
}

/** A remote's index file of a crate: fetched from the upstream (cached, revalidated), or null. */
async function remoteEntries(h: RepositoryHandle, name: string): Promise<IndexEntry[] | null> {
  const file = await h.get(indexFileOf(name));
  return file ? readIndexFile(file) : null;
}

/** Whether a member may be asked for a crate (read permission on its index file). */
const readable = (m: RepositoryHandle, name: string) =>
  m.can('read', m.repository.rclass === 'local' ? localIndexPath(name) : indexFileOf(name));

/**
 * A virtual repository's index file of a crate: the entries of its members, local members first
 * (a version a local member has wins over a remote's); a remote member guarding against namespace
 * confusion is not asked at all for a crate a local member holds.
 */
export async function virtualEntries(ctx: RequestContext, name: string): Promise<IndexEntry[] | null> {
  const members = await ctx.members();
  const locals = members.filter((m) => m.repository.rclass === 'local');
  const remotes = members.filter((m) => m.repository.rclass === 'remote');
  const merged: IndexEntry[] = [];
  let found = false;
  const add = (entries: IndexEntry[]) => {
    for (const e of entries) if (!merged.some((x) => sameVersion(x.vers, e.vers))) merged.push(e);
  };
  for (const m of locals) {
    if (!(await readable(m, name))) continue;
    const entries = await localEntries(m, name);
    if (entries.length) found = true;
    add(entries);
  }
  for (const m of remotes) {
    if (found && m.repository.remote?.namespaceConfusionProtection !== false) continue;
    if (!(await readable(m, name))) continue;
    const entries = await tolerant(ctx, m, indexFileOf(name), () => remoteEntries(m, name));
    if (entries) {
      found = true;
      add(entries);
    }
  }
  return found ? merged : null;
}

/** Sends an index document (text, one entry a line) with an ETag cargo revalidates with. */
function sendIndexText(request: FormatRequest, reply: FastifyReply, body: string) {
  const etag = `"${createHash('sha256').update(body).digest('hex').slice(0, 32)}"`;
  reply.header('etag', etag).header('cache-control', 'no-cache').type('text/plain; charset=utf-8');
  if (request.headers['if-none-match'] === etag) return reply.code(304).send();
  if (request.method === 'HEAD')
    return reply.code(200).header('content-length', Buffer.byteLength(body)).send();
  return reply.code(200).send(body);
}

/** `GET /{index path}`: a crate's sparse index file, from this repository's class. */
export async function serveIndex(
  request: FormatRequest,
  reply: FastifyReply,
  ctx: RequestContext,
  name: string,
) {
  const notFound = () => new CargoError(404, `crate \`${name}\` not found in '${ctx.repository.key}'`);
  switch (ctx.repository.rclass) {
    case 'local': {
      await ctx.authorize('read', localIndexPath(name));
      const file = await ctx.stat(localIndexPath(name));
      if (!file) throw notFound();
      return ctx.send(reply, file);
    }
    case 'remote': {
      const file = await ctx.get(indexFileOf(name));
      if (!file) throw notFound();
      return ctx.send(reply, file);
    }
    default: {
      await ctx.authorize('read', indexFileOf(name));
      const entries = await virtualEntries(ctx, name);
      if (!entries) throw notFound();
      return sendIndexText(request, reply, renderIndex(entries));
    }
  }
}

/** The upstream URL of a version's .crate from a registry's `dl` template (the Cargo book, "config.json"). */
export function expandDl(dl: string, name: string, version: string, cksum: string): string {
  const markers = ['{crate}', '{version}', '{prefix}', '{lowerprefix}', '{sha256-checksum}'];
  if (!markers.some((m) => dl.includes(m))) return `${dl.replace(/\/+$/, '')}/${name}/${version}/download`;
  const prefix = indexFileOf(name).split('/').slice(0, -1).join('/');
  const casedPrefix = name.length <= 3 ? prefix : `${name.slice(0, 2)}/${name.slice(2, 4)}`;
  return dl
    .replaceAll('{crate}', name)
    .replaceAll('{version}', version)
    .replaceAll('{prefix}', casedPrefix)
    .replaceAll('{lowerprefix}', prefix)
    .replaceAll('{sha256-checksum}', cksum);
}

const MAX_CONFIG_BYTES = 1024 * 1024;

/**
 * A remote's .crate: its cached copy, or fetched from where the upstream's `config.json` `dl` says,
 * checked against the checksum of the upstream's index entry, then cached. Null when the upstream
 * has no such version.
 */
export async function remoteCrate(
  h: RepositoryHandle,
  name: string,
  version: string,
): Promise<FormatFile | null> {
  const path = crateFileOf(name, version);
  const cached = await h.stat(path);
  if (cached) return cached;
  const entry = (await remoteEntries(h, name))?.find((e) => e.name === name && e.vers === version);
  if (!entry) return null;
  const config = await h.upstream('config.json', { maxBytes: MAX_CONFIG_BYTES });
  let dl: unknown;
  try {
    dl =
      config.status === 200 ? (JSON.parse(config.body.toString('utf8')) as { dl?: unknown }).dl : undefined;
  } catch {
    dl = undefined;
  }
  if (typeof dl !== 'string')
    throw new UpstreamError(`The upstream of '${h.repository.key}' has no config.json with a dl URL`);
  const res = await h.upstream(expandDl(dl, name, version, entry.cksum), { stream: true });
  if (res.status !== 200) {
    res.stream?.destroy();
    if (res.status === 404 || res.status === 410) return null;
    throw new UpstreamError(
      `The upstream of '${h.repository.key}' answered ${res.status} for ${name}@${version}`,
    );
  }
  try {
    return await h.cache(path, res.stream!, { expected: { sha256: entry.cksum } });
  } catch (err) {
    // Bytes that are not what the upstream's own index says: refused as the upstream's fault.
    if (httpStatusOf(err) === 409)
      throw new UpstreamError(
        `The upstream of '${h.repository.key}' sent ${name}@${version} with another checksum than its index`,
      );
    throw err;
  }
}

/** `GET /crates/{name}/{name}-{version}.crate` (the `dl` URL): a version's .crate, from this repository's class. */
export async function serveCrate(reply: FastifyReply, ctx: RequestContext, name: string, version: string) {
  const path = crateFileOf(name, version);
  await ctx.authorize('read', path);
  const notFound = () => new CargoError(404, `\`${name}@${version}\` not found in '${ctx.repository.key}'`);
  if (ctx.repository.rclass === 'local') {
    const file = await ctx.stat(path);
    if (!file) throw notFound();
    return ctx.send(reply, file);
  }
  if (ctx.repository.rclass === 'remote') {
    const file = await remoteCrate(ctx, name, version);
    if (!file) throw notFound();
    return ctx.send(reply, file);
  }
  const members = await ctx.members();
  let localHolds = false;
  for (const m of members.filter((x) => x.repository.rclass === 'local')) {
    if (!(await m.can('read', path))) continue;
    const file = await m.stat(path);
    if (file) return ctx.send(reply, file);
    if ((await localEntries(m, name)).length) localHolds = true;
  }
  for (const m of members.filter((x) => x.repository.rclass === 'remote')) {
    if (localHolds && m.repository.remote?.namespaceConfusionProtection !== false) continue;
    if (!(await m.can('read', path))) continue;
    const file = await tolerant(ctx, m, path, () => remoteCrate(m, name, version));
    if (file) return ctx.send(reply, file);
  }
  throw notFound();
}
