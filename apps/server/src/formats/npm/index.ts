import type { FastifyReply } from 'fastify';
import semver from 'semver';
import { httpStatusOf } from '../../platform/http/error-status.ts';
import { lingerAfterAnswer } from '../../platform/http/linger.ts';
import type { FormatRequest, PackageFormat, RequestContext } from '../sdk/format.ts';
import { npmAfterChange } from './after-change.ts';
import { gzipOf, localPackument, packumentOf, renderCached, renderPackument } from './index-builder.ts';
import { npmInstallCommand } from './install-command.ts';
import { extractNpmMetadata } from './metadata.ts';
import { escapeName, META_ROOT, type NpmPath, parseNpmPath } from './names.ts';
import { deleteTarball, NpmError, publish, readJsonBody, unpublishAll, updatePackage } from './publish.ts';
import { registryApi } from './registry-api.ts';
import { npmSnippets } from './snippets.ts';
import { npmPackageFolder, npmPatternPath, npmUpstreamCheck } from './upstream.ts';

const ABBREVIATED = 'application/vnd.npm.install-v1+json';

const isObject = (v: unknown): v is Record<string, unknown> =>
  !!v && typeof v === 'object' && !Array.isArray(v);

/** Whether an Accept-Encoding header takes gzip (and does not refuse it with q=0). */
function acceptsGzip(header: string | string[] | undefined): boolean {
  const value = Array.isArray(header) ? header.join(',') : header;
  if (!value?.includes('gzip')) return false;
  return !/(^|,)\s*gzip\s*;\s*q=0(\.0*)?\s*(,|$)/i.test(value);
}

/** Full packument, or the abbreviated one when the client asks for it (`npm install` does). */
async function servePackument(
  request: FormatRequest,
  reply: FastifyReply,
  ctx: RequestContext,
  name: string,
) {
  await ctx.authorize('read', name);
  const p = await packumentOf(ctx, name);
  if (!p) throw new NpmError(404, `Package '${name}' not found`);
  const accept = String(request.headers.accept ?? '');
  const abbreviated = accept.includes(ABBREVIATED) && request.query.write !== 'true';
  const entry = renderCached(p, ctx.repositoryUrl, abbreviated);
  reply
    .header('etag', entry.etag)
    .header('vary', 'Accept, Accept-Encoding, Authorization')
    .header('cache-control', 'no-cache')
    .type(abbreviated ? `${ABBREVIATED}; charset=utf-8` : 'application/json; charset=utf-8');
  if (request.headers['if-none-match'] === entry.etag) return reply.code(304).send();
  // npm asks with `Accept-Encoding: gzip`: the compressed form is made once per change, not per request.
  const gzip = acceptsGzip(request.headers['accept-encoding']) ? gzipOf(entry) : undefined;
  const body = gzip ?? entry.body;
  if (gzip) reply.header('content-encoding', 'gzip');
  if (request.method === 'HEAD') return reply.code(200).header('content-length', body.length).send();
  return reply.code(200).send(body);
}

/** `GET /{name}/{version|tag}`: one version's manifest. */
async function serveVersion(reply: FastifyReply, ctx: RequestContext, name: string, spec: string) {
  await ctx.authorize('read', name);
  const p = await packumentOf(ctx, name);
  if (!p) throw new NpmError(404, `Package '${name}' not found`);
  const version =
    p['dist-tags'][spec] ??
    (p.versions[spec] ? spec : (semver.maxSatisfying(Object.keys(p.versions), spec) ?? undefined));
  if (!version || !p.versions[version]) throw new NpmError(404, `Version '${spec}' of '${name}' not found`);
  const one = { ...p, versions: { [version]: p.versions[version]! } };
  const doc = JSON.parse(renderPackument(one, ctx.repositoryUrl, false)) as {
    versions: Record<string, unknown>;
  };
  return reply.code(200).type('application/json; charset=utf-8').send(doc.versions[version]);
}

/**
 * A tarball through a virtual repository: when a local member holds the name, only local members
 * may answer (dependency confusion, by package name rather than by file path); otherwise the first
 * member that has it, remotes fetching and caching from their upstream.
 */
async function serveVirtualTarball(reply: FastifyReply, ctx: RequestContext, name: string, file: string) {
  await ctx.authorize('read', name);
  const members = await ctx.members();
  const path = `${name}/-/${file}`;
  let localOnly = false;
  for (const m of members)
    if (m.repository.rclass === 'local' && (await localPackument(m, name))) {
      localOnly = true;
      break;
    }
  for (const m of members) {
    if (localOnly && m.repository.rclass !== 'local') continue;
    try {
      const found = await m.get(path);
      if (found) return ctx.send(reply, found);
    } catch (err) {
      const status = httpStatusOf(err);
      if (status === undefined || status < 500) throw err;
      ctx.log.warn({ member: m.repository.key, path, err: (err as Error).message }, 'npm member failed');
    }
  }
  throw new NpmError(404, `'${path}' not found`);
}

const sendJson = (reply: FastifyReply, status: number, body: unknown) =>
  reply.code(status).type('application/json; charset=utf-8').send(body);

async function handlePackage(request: FormatRequest, reply: FastifyReply, ctx: RequestContext, p: NpmPath) {
  const method = request.method;
  const read = method === 'GET' || method === 'HEAD';
  switch (p.kind) {
    case 'packument':
      if (read && !p.rev) return servePackument(request, reply, ctx, p.name);
      if (method === 'PUT') {
        if (ctx.repository.rclass === 'remote')
          throw new NpmError(405, `Remote repository '${ctx.repository.key}' does not accept publishes`);
        // Anonymous callers without write permission hear 401 before their body is read.
        if (!ctx.principal) await (await ctx.deployContext()).authorize('write', p.name);
        const doc = await readJsonBody(request.body, ctx.settings.npmPublishMaxBytes, {
          announced: request.headers['content-length'],
          setting: 'GRANARY_NPM_PUBLISH_MAX_BYTES',
        });
        if (!isObject(doc)) throw new NpmError(400, 'The publish document must be a JSON object');
        const hasTarball = isObject(doc._attachments) && Object.keys(doc._attachments).length > 0;
        const answer = hasTarball ? await publish(ctx, p.name, doc) : await updatePackage(ctx, p.name, doc);
        return sendJson(reply, hasTarball ? 201 : 200, answer);
      }
      if (method === 'DELETE') return sendJson(reply, 200, await unpublishAll(ctx, p.name));
      return false;
    case 'version':
      if (method === 'GET') return serveVersion(reply, ctx, p.name, p.spec);
      return false;
    case 'tarball':
      if (read && !p.rev) {
        if (ctx.repository.rclass !== 'virtual') return false;
        return serveVirtualTarball(reply, ctx, p.name, p.file);
      }
      if (method === 'DELETE') return sendJson(reply, 200, await deleteTarball(ctx, p.name, p.file));
      if (method === 'PUT') throw new NpmError(405, 'Publish packages with npm publish');
      return false;
    default:
      return false;
  }
}

/**
 * npm registries (local, remote, virtual) for the real npm client: packuments (full and abbreviated),
 * tarballs, publish, dist-tags, deprecate, unpublish, search, login (legacy and web), whoami, ping
 * and the audit endpoints. Errors answer npm's `{error}`, which the client prints.
 */
export const npmFormat: PackageFormat = {
  id: 'npm',
  aliases: [],
  displayName: 'npm',
  icon: 'npm',
  classes: ['local', 'remote', 'virtual'],
  extractMetadata: extractNpmMetadata,
  snippets: npmSnippets,
  installCommand: npmInstallCommand,
  /** The registry's records (issue 12 §20): written and served through the npm protocol only. */
  internalPaths: [`${META_ROOT}/**`],
  /** `.npm/{name}/package.json` (a remote's cached packument) is the upstream's `/{name}`; tarballs keep their path. */
  upstreamUrl(remoteUrl, path) {
    const base = remoteUrl.replace(/\/+$/, '');
    const m = /^\.npm\/(.+)\/package\.json$/.exec(path);
    return m ? `${base}/${escapeName(m[1]!)}` : `${base}/${path}`;
  },
  isMetadataPath: (path) => path.startsWith(`${META_ROOT}/`),
  upstreamCheck: npmUpstreamCheck,
  patternPath: npmPatternPath,
  packageFolder: npmPackageFolder,
  afterChange: npmAfterChange,
  errorBody(error, reply) {
    // A body refused for its size is not kept: it flows away unread for a moment, then the
    // connection is cut, so the client reads the 413 rather than a reset.
    if (error.status === 413) lingerAfterAnswer(reply);
    if (error.status === 401 && /^Bearer\s/i.test(String(reply.request.headers.authorization ?? '')))
      reply.header('www-authenticate', 'Bearer realm="Granary"');
    return { error: error.message };
  },
  async handle(request, reply, ctx) {
    const p = parseNpmPath(request.path);
    if (p.kind === 'api') {
      const answered = await registryApi(request, reply, ctx, p.rest);
      return answered !== false;
    }
    if (p.kind === 'other') {
      const read = request.method === 'GET' || request.method === 'HEAD';
      // The format's own records are written only through the npm protocol.
      if (request.path.startsWith(`${META_ROOT}/`) && !read)
        throw new NpmError(405, `'${META_ROOT}/' holds the registry's records: use the npm client`);
      // A remote serves packuments (rewritten to point here) and tarballs, never an upstream document
      // as it came; through a virtual repository the records are served as packuments only. Folder
      // listings stay (they show what is stored, never a document).
      const file = request.path !== '' && !request.path.endsWith('/');
      if (
        read &&
        file &&
        (ctx.repository.rclass === 'remote' ||
          (ctx.repository.rclass === 'virtual' && request.path.startsWith(`${META_ROOT}/`)))
      )
        throw new NpmError(
          404,
          `'${request.path}' is not a package name or tarball of '${ctx.repository.key}'`,
        );
      return false;
    }
    const answered = await handlePackage(request, reply, ctx, p);
    return answered !== false;
  },
};
