import path from 'node:path';
import type { Readable } from 'node:stream';
import { ANONYMOUS_BEARER_TOKEN } from '@granary/contracts';
import type { FastifyInstance, FastifyReply, FastifyRequest } from 'fastify';
import { infrastructureError } from '../../platform/http/infrastructure-errors.ts';
import type { FormatContext, FormatContextFactory } from '../sdk/format.ts';
import { collectGarbage } from './gc.ts';
import {
  isValidReference,
  MAX_MANIFEST_BYTES,
  MEDIA_TYPES,
  NAME_RE,
  OCI_CODES,
  OciError,
  requireSha256,
  UPLOADS,
} from './oci.ts';
import {
  deleteManifest,
  findBlob,
  findManifest,
  linkBlob,
  listImages,
  listReferrers,
  listTags,
  storeBlob,
  storeManifest,
} from './store.ts';
import { UploadSessions } from './uploads.ts';

type V2Request = FastifyRequest<{
  Params: { '*'?: string };
  Querystring: Record<string, string | undefined>;
}>;

/** Largest page of tags or repositories (spec: a registry may return fewer than `n`). */
export const MAX_PAGE = 1000;
/** Lifetime of a token from `/v2/token`: short, and revocable like every access token. */
export const TOKEN_SECS = 600;

function baseUrlOf(request: FastifyRequest, ctx?: FormatContext): string {
  return ctx?.baseUrl ?? `${request.protocol}://${request.host}`;
}

/** `{repoKey}/{image}` → its parts (spec "repository path method": the first segment is the repository). */
function splitName(name: string): { repoKey: string; image: string } {
  const slash = name.indexOf('/');
  const repoKey = slash < 0 ? '' : name.slice(0, slash);
  const image = slash < 0 ? '' : name.slice(slash + 1);
  if (!repoKey || !NAME_RE.test(image))
    throw new OciError(
      400,
      'NAME_INVALID',
      `'${name}' is not {repository key}/{image name} (lower-case image name components separated by /)`,
    );
  return { repoKey, image };
}

type Route =
  | { kind: 'manifest'; name: string; ref: string }
  | { kind: 'blob'; name: string; digest: string }
  | { kind: 'upload'; name: string; uuid: string }
  | { kind: 'tags'; name: string }
  | { kind: 'referrers'; name: string; digest: string };

/** The tail of `/v2/…` → what it names (the last `/manifests/`, `/blobs/`… wins: names may have many segments). */
export function parseTail(tail: string): Route | null {
  let m = /^(.+)\/manifests\/([^/]+)$/.exec(tail);
  if (m) return { kind: 'manifest', name: m[1]!, ref: m[2]! };
  m = /^(.+)\/blobs\/uploads\/([^/]*)$/.exec(tail);
  if (m) return { kind: 'upload', name: m[1]!, uuid: m[2]! };
  m = /^(.+)\/blobs\/([^/]+)$/.exec(tail);
  if (m) return { kind: 'blob', name: m[1]!, digest: m[2]! };
  m = /^(.+)\/tags\/list$/.exec(tail);
  if (m) return { kind: 'tags', name: m[1]! };
  m = /^(.+)\/referrers\/([^/]+)$/.exec(tail);
  if (m) return { kind: 'referrers', name: m[1]!, digest: m[2]! };
  return null;
}

/** spec "Listing Tags": `n` (clamped to MAX_PAGE) and `last`, with a `Link` to the next page. */
function paginate(
  reply: FastifyReply,
  all: string[],
  query: Record<string, string | undefined>,
  path: string,
) {
  const sorted = [...all].sort();
  let n = MAX_PAGE;
  if (query.n !== undefined) {
    if (!/^\d+$/.test(query.n)) throw new OciError(400, 'UNSUPPORTED', `n must be a non-negative integer`);
    n = Math.min(Number(query.n), MAX_PAGE);
  }
  const after = query.last;
  const rest = after === undefined ? sorted : sorted.filter((t) => t > after);
  const page = rest.slice(0, n);
  if (rest.length > page.length && page.length > 0)
    reply.header('link', `<${path}?n=${n}&last=${encodeURIComponent(page.at(-1)!)}>; rel="next"`);
  return page;
}

async function readBody(body: Readable, max: number, announced?: string): Promise<Buffer> {
  if (announced && /^\d+$/.test(announced) && Number(announced) > max) {
    body.resume();
    throw new OciError(413, 'MANIFEST_INVALID', `The manifest is larger than ${max} bytes`);
  }
  const chunks: Buffer[] = [];
  let total = 0;
  for await (const chunk of body) {
    total += (chunk as Buffer).length;
    if (total > max) {
      body.resume();
      throw new OciError(413, 'MANIFEST_INVALID', `The manifest is larger than ${max} bytes`);
    }
    chunks.push(chunk as Buffer);
  }
  return Buffer.concat(chunks);
}

const hasBody = (request: FastifyRequest) =>
  request.headers['transfer-encoding'] !== undefined ||
  (request.headers['content-length'] !== undefined && request.headers['content-length'] !== '0');

/** The OCI error code for an error the core threw (DomainError shape: status, code). */
function ociCodeOf(status: number, code: string | undefined): { status: number; code: string } {
  if (code && OCI_CODES.has(code)) return { status, code };
  if (code === 'CHECKSUM_MISMATCH') return { status: 400, code: 'DIGEST_INVALID' };
  const byStatus: Record<number, string> = {
    400: 'UNSUPPORTED',
    401: 'UNAUTHORIZED',
    403: 'DENIED',
    404: 'NAME_UNKNOWN',
    405: 'UNSUPPORTED',
    409: 'DENIED',
    413: 'SIZE_INVALID',
    416: 'BLOB_UPLOAD_INVALID',
    429: 'TOOMANYREQUESTS',
  };
  return { status, code: byStatus[status] ?? 'UNKNOWN' };
}

/**
 * OCI Distribution 1.1 at `/v2/`, images addressed `HOST/{repoKey}/{image}`: pull, push (monolithic,
 * chunked, cross-repository mount), tags, referrers, delete, catalog, the token endpoint docker login
 * uses, and the garbage collection job. Every error is `{errors: [{code, message, detail}]}`.
 */
export async function registerOciRoutes(app: FastifyInstance, contexts: FormatContextFactory): Promise<void> {
  const { config } = app.granary;
  const uploads = new UploadSessions(
    path.join(config.home, 'tmp', 'oci-uploads'),
    config.ociUploadExpirySecs * 1000,
  );
  await uploads.load();

  /** Garbage collection over every Docker repository, as the server (the admin endpoint and the job). */
  const garbageCollection = async (opts: { graceMs: number; dryRun: boolean; log: FormatContext['log'] }) => {
    const all: FormatContext[] = [];
    for (const key of (await contexts.repositoryKeys?.('docker')) ?? []) {
      const ctx = await contexts.system?.(key);
      if (ctx) all.push(ctx);
    }
    return collectGarbage(all, { ...opts, busy: uploads.names() });
  };
  // Background work goes through platform/jobs: no timer here, no call to the server's own routes.
  app.granary.jobs.recurring({
    name: 'oci.gc',
    scope: 'cluster',
    intervalMs: config.ociGcIntervalSecs * 1000,
    run: ({ log }) => garbageCollection({ graceMs: config.ociGcGraceSecs * 1000, dryRun: false, log }),
  });
  // Sessions live in this node's home: every node expires its own.
  app.granary.jobs.recurring({
    name: 'oci.uploads-expire',
    scope: 'node',
    intervalMs: Math.min(3600, Math.max(60, config.ociUploadExpirySecs / 4)) * 1000,
    run: async ({ log }) => {
      const result = await uploads.expire();
      if (result.expired > 0) log.info(result, 'oci: expired uploads dropped');
      return result;
    },
  });

  const challenge = (request: FastifyRequest, reply: FastifyReply) => {
    const tail = ((request.params as { '*'?: string })['*'] ?? '').replace(/^\/+/, '');
    const base = baseUrlOf(request);
    if (tail === 'token') {
      reply.header('www-authenticate', 'Basic realm="Granary"');
      return;
    }
    const route = parseTail(tail);
    const action = request.method === 'GET' || request.method === 'HEAD' ? 'pull' : 'pull,push';
    const scope = route ? `,scope="repository:${route.name}:${action}"` : '';
    reply.header('www-authenticate', `Bearer realm="${base}/v2/token",service="${request.host}"${scope}`);
  };

  const repoContext = async (request: FastifyRequest, reply: FastifyReply, name: string) => {
    const { repoKey, image } = splitName(name);
    const ctx = await contexts(request, reply, repoKey);
    if (ctx?.repository.packageType !== 'docker') {
      if (!request.principal) throw new OciError(401, 'UNAUTHORIZED', 'Authentication is required');
      throw new OciError(404, 'NAME_UNKNOWN', `Repository '${repoKey}' is not a Docker repository here`);
    }
    return { ctx, image };
  };

  /** Where a push lands: the repository, or a virtual repository's default deployment repository. */
  const writeContext = async (ctx: FormatContext): Promise<FormatContext> => {
    if (ctx.repository.rclass === 'remote')
      throw new OciError(
        405,
        'UNSUPPORTED',
        `Remote repository '${ctx.repository.key}' does not accept pushes`,
      );
    if (ctx.repository.rclass === 'local') return ctx;
    try {
      return await ctx.deployContext();
    } catch (err) {
      throw new OciError(405, 'UNSUPPORTED', (err as Error).message);
    }
  };

  const localOnly = (ctx: FormatContext) => {
    if (ctx.repository.rclass !== 'local')
      throw new OciError(405, 'UNSUPPORTED', `Delete from the local repository, not '${ctx.repository.key}'`);
  };

  const owner = (request: FastifyRequest) => request.principal?.name ?? 'anonymous';

  async function manifest(request: V2Request, reply: FastifyReply, name: string, ref: string) {
    const { ctx, image } = await repoContext(request, reply, name);
    if (request.method === 'GET' || request.method === 'HEAD') {
      await ctx.authorize('read', image);
      // No manifest can be there by a reference that is no tag or digest (the conformance suite asks 404).
      const hit = isValidReference(ref) ? await findManifest(ctx, image, ref) : null;
      if (!hit)
        throw new OciError(404, 'MANIFEST_UNKNOWN', `${name}:${ref} is not here`, { name, reference: ref });
      reply
        .header('content-type', hit.mediaType)
        .header('docker-content-digest', hit.digest)
        .header('etag', `"${hit.digest}"`)
        .header('content-length', String(hit.bytes.length));
      return reply.code(200).send(request.method === 'HEAD' ? undefined : hit.bytes);
    }
    if (request.method === 'PUT') {
      const dctx = await writeContext(ctx);
      await dctx.authorize('write', image);
      const body = await readBody(
        request.raw as Readable,
        MAX_MANIFEST_BYTES,
        request.headers['content-length'] as string | undefined,
      );
      const { digest, parsed } = await storeManifest(dctx, image, ref, request.headers['content-type'], body);
      reply.header('location', `/v2/${name}/manifests/${digest}`).header('docker-content-digest', digest);
      if (parsed.subject) reply.header('oci-subject', parsed.subject.digest);
      return reply.code(201).send();
    }
    if (request.method === 'DELETE') {
      localOnly(ctx);
      await ctx.authorize('delete', image);
      await deleteManifest(ctx, image, ref);
      return reply.code(202).send();
    }
    throw new OciError(405, 'UNSUPPORTED', `${request.method} is not supported on manifests`);
  }

  async function blob(request: V2Request, reply: FastifyReply, name: string, digest: string) {
    const { ctx, image } = await repoContext(request, reply, name);
    const hex = requireSha256(digest);
    if (request.method === 'GET' || request.method === 'HEAD') {
      await ctx.authorize('read', image);
      const file = await findBlob(ctx, image, hex);
      if (!file) throw new OciError(404, 'BLOB_UNKNOWN', `${digest} is not in ${name}`, { digest });
      reply.header('docker-content-digest', `sha256:${hex}`);
      return ctx.send(reply, file);
    }
    if (request.method === 'DELETE') {
      localOnly(ctx);
      await ctx.authorize('delete', image);
      const file = await ctx.stat(`${image}/_uploads/sha256__${hex}`);
      if (!file) throw new OciError(404, 'BLOB_UNKNOWN', `${digest} is not in ${name}`, { digest });
      await ctx.delete(file.path);
      return reply.code(202).send();
    }
    throw new OciError(405, 'UNSUPPORTED', `${request.method} is not supported on blobs`);
  }

  const uploadHeaders = (reply: FastifyReply, name: string, uuid: string, size: number) =>
    reply
      .header('location', `/v2/${name}/blobs/uploads/${uuid}`)
      .header('docker-upload-uuid', uuid)
      .header('range', `0-${Math.max(0, size - 1)}`)
      .header('content-length', '0');

  const blobCreated = (reply: FastifyReply, name: string, hex: string) =>
    reply
      .code(201)
      .header('location', `/v2/${name}/blobs/sha256:${hex}`)
      .header('docker-content-digest', `sha256:${hex}`)
      .header('content-length', '0')
      .send();

  async function upload(request: V2Request, reply: FastifyReply, name: string, uuid: string) {
    const { ctx, image } = await repoContext(request, reply, name);
    const dctx = await writeContext(ctx);
    await dctx.authorize('write', image);
    const body = request.raw as Readable;
    const query = request.query;
    if (request.method === 'POST' && uuid === '') {
      if (query.mount) {
        const hex = requireSha256(query.mount);
        const from = query.from
          ? await repoContext(request, reply, query.from).catch(() => null)
          : { ctx, image };
        const source =
          from && (await from.ctx.can('read', from.image)) ? await findBlob(from.ctx, from.image, hex) : null;
        if (source) {
          body.resume();
          await linkBlob(dctx, image, hex);
          return blobCreated(reply, name, hex);
        }
      }
      if (query.digest) {
        const hex = requireSha256(query.digest);
        await storeBlob(dctx, image, hex, body);
        return blobCreated(reply, name, hex);
      }
      body.resume();
      const session = await uploads.open(name, owner(request));
      return uploadHeaders(reply, name, session.uuid, 0).code(202).send();
    }
    const session = await uploads.get(uuid, name, owner(request));
    const range = /^(?:bytes[ =])?(\d+)-(\d+)$/.exec(String(request.headers['content-range'] ?? ''));
    const start = range ? Number(range[1]) : undefined;
    const length = range ? Number(range[2]) - Number(range[1]) + 1 : undefined;
    if (request.method === 'GET') {
      body.resume();
      return uploadHeaders(reply, name, uuid, session.size).code(204).send();
    }
    const spoolPath = `${image}/${UPLOADS}/upload-${uuid}`;
    /** The first chunk's bytes in the blob store (spooled by this process, or found again after a restart). */
    const partialBytes = async () => {
      const partial = session.partial!;
      const spooled = uploads.spooledOf(session) ?? (await dctx.respool(spoolPath, partial.sha256));
      if (!spooled || spooled.size !== partial.size) {
        await uploads.close(session);
        throw new OciError(
          404,
          'BLOB_UPLOAD_UNKNOWN',
          `The bytes of upload '${uuid}' are gone: start it again`,
        );
      }
      return spooled;
    };
    /** A second chunk after a first one in the blob store: the bytes so far go to the session's file, the rest appends there. */
    const materialize = async () => {
      if (!session.partial) return;
      await uploads.materialize(session, await (await partialBytes()).open());
    };
    const close = () => uploads.close(session);
    if (request.method === 'DELETE') {
      body.resume();
      await uploads.serial(uuid, close);
      return reply.code(204).send();
    }
    if (request.method === 'PATCH') {
      await uploads.serial(uuid, async () => {
        if (session.size === 0 && !session.partial && !start) {
          const spooled = await dctx.spool(spoolPath, body, {
            expected: length !== undefined ? { size: length } : {},
          });
          await uploads.setPartial(session, spooled);
          return;
        }
        await materialize();
        await uploads.append(session, body, start, length);
      });
      return uploadHeaders(reply, name, uuid, session.size).code(202).send();
    }
    if (request.method === 'PUT') {
      const hex = requireSha256(query.digest);
      await uploads.serial(uuid, async () => {
        try {
          if (hasBody(request)) {
            if (session.size === 0 && !session.partial) {
              await storeBlob(dctx, image, hex, body);
              return;
            }
            await materialize();
            await uploads.append(session, body, start ?? session.size, length);
          } else body.resume();
          if (session.partial) {
            if (session.partial.sha256 !== hex)
              throw new OciError(
                400,
                'DIGEST_INVALID',
                `The uploaded content is sha256:${session.partial.sha256}, not sha256:${hex}; nothing was stored`,
              );
            await linkBlob(dctx, image, hex, await partialBytes());
          } else await storeBlob(dctx, image, hex, uploads.read(session));
        } finally {
          await close();
        }
      });
      return blobCreated(reply, name, hex);
    }
    throw new OciError(405, 'UNSUPPORTED', `${request.method} is not supported on uploads`);
  }

  async function tags(request: V2Request, reply: FastifyReply, name: string) {
    const { ctx, image } = await repoContext(request, reply, name);
    await ctx.authorize('read', image);
    const all = await listTags(ctx, image);
    if (!all) throw new OciError(404, 'NAME_UNKNOWN', `${name} is not here`, { name });
    return reply.send({ name, tags: paginate(reply, all, request.query, `/v2/${name}/tags/list`) });
  }

  async function referrers(request: V2Request, reply: FastifyReply, name: string, digest: string) {
    const { ctx, image } = await repoContext(request, reply, name);
    await ctx.authorize('read', image);
    const hex = requireSha256(digest);
    const artifactType = request.query.artifactType;
    const manifests = await listReferrers(ctx, image, hex, artifactType);
    if (artifactType) reply.header('oci-filters-applied', 'artifactType');
    return reply
      .type(MEDIA_TYPES.ociIndex)
      .send(Buffer.from(JSON.stringify({ schemaVersion: 2, mediaType: MEDIA_TYPES.ociIndex, manifests })));
  }

  async function catalog(request: V2Request, reply: FastifyReply) {
    const names: string[] = [];
    for (const key of (await contexts.repositoryKeys?.('docker')) ?? []) {
      const ctx = await contexts(request, reply, key);
      if (!ctx || !(await ctx.can('read', ''))) continue;
      for (const image of await listImages(ctx))
        if (await ctx.can('read', image)) names.push(`${key}/${image}`);
    }
    return reply.send({ repositories: paginate(reply, names, request.query, '/v2/_catalog') });
  }

  /** `docker login`'s token endpoint: the caller (Basic password or access token) gets a short-lived revocable token. */
  async function token(request: V2Request, reply: FastifyReply) {
    // No credentials: the anonymous token, worth exactly anonymous access (each read still asks permission).
    if (!request.principal)
      return reply.header('cache-control', 'no-store').send({
        token: ANONYMOUS_BEARER_TOKEN,
        access_token: ANONYMOUS_BEARER_TOKEN,
        expires_in: TOKEN_SECS,
        issued_at: new Date().toISOString(),
      });
    const scoped = /^repository:([^/:]+)\//.exec(request.query.scope ?? '')?.[1];
    const keys = (await contexts.repositoryKeys?.()) ?? [];
    const key = scoped && keys.includes(scoped) ? scoped : keys[0];
    const ctx = key ? await contexts(request, reply, key) : null;
    if (!ctx) throw new OciError(503, 'UNKNOWN', 'No repository exists to issue a token for');
    const issued = await ctx.issueToken({
      description: `docker login (${request.query.service ?? request.host})`,
      expiresInSecs: TOKEN_SECS,
    });
    return reply.header('cache-control', 'no-store').send({
      token: issued.token,
      access_token: issued.token,
      expires_in: issued.expiresInSecs ?? TOKEN_SECS,
      issued_at: new Date().toISOString(),
    });
  }

  async function dispatch(request: V2Request, reply: FastifyReply) {
    const tail = (request.params['*'] ?? '').replace(/^\/+/, '');
    const method = request.method;
    const read = method === 'GET' || method === 'HEAD';
    if (tail === '') {
      if (!read) throw new OciError(405, 'UNSUPPORTED', `${method} is not supported here`);
      const anonymousToken = request.headers.authorization === `Bearer ${ANONYMOUS_BEARER_TOKEN}`;
      if (!request.principal && !anonymousToken)
        throw new OciError(401, 'UNAUTHORIZED', 'Authentication is required');
      return reply.send({});
    }
    if (tail === 'token' && read) return token(request, reply);
    if (tail === '_catalog' && read) return catalog(request, reply);
    const route = parseTail(tail);
    if (!route) throw new OciError(404, 'NAME_UNKNOWN', `No registry endpoint at /v2/${tail}`);
    switch (route.kind) {
      case 'manifest':
        return manifest(request, reply, route.name, route.ref);
      case 'blob':
        return blob(request, reply, route.name, route.digest);
      case 'upload':
        return upload(request, reply, route.name, route.uuid);
      case 'tags':
        if (!read) throw new OciError(405, 'UNSUPPORTED', `${method} is not supported on tags`);
        return tags(request, reply, route.name);
      case 'referrers':
        if (!read) throw new OciError(405, 'UNSUPPORTED', `${method} is not supported on referrers`);
        return referrers(request, reply, route.name, route.digest);
    }
  }

  await app.register(async (scope) => {
    // Bodies are blobs and manifests: left unread, streamed by the handlers.
    scope.removeAllContentTypeParsers();
    scope.addContentTypeParser('*', (_request, _payload, done) => done(null));
    // Slow clients and too many uploads from one address (PATCH, PUT, POST) are refused (issue 12 §15).
    scope.addHook('onRequest', app.granary.uploads.onRequest);
    scope.setErrorHandler(async (error: unknown, request: FastifyRequest, reply: FastifyReply) => {
      // No space left → 507, the database unavailable → 503 with Retry-After: the core's mapping (issue 12 §10, §12).
      const e = (infrastructureError(error, request.id) ?? error) as {
        status?: number;
        statusCode?: number;
        code?: string;
        message?: string;
        detail?: unknown;
        headers?: Record<string, string>;
      };
      const raw = e.status ?? e.statusCode ?? 500;
      const { status, code } = ociCodeOf(raw >= 400 && raw < 600 ? raw : 500, e.status ? e.code : undefined);
      if (status >= 500) request.log.error({ err: error }, 'registry request failed');
      // A server error written for the client (it carries its own status) keeps its message.
      const message =
        status >= 500 && e.status === undefined
          ? `Internal server error (request ${request.id})`
          : (e.message ?? code);
      if (e.headers) reply.headers(e.headers);
      if (status === 401) challenge(request, reply);
      if (status === 416 && (e.detail as { range?: string })?.range)
        reply.header('range', (e.detail as { range: string }).range);
      return reply
        .code(status)
        .header('docker-distribution-api-version', 'registry/2.0')
        .type('application/json; charset=utf-8')
        .send({ errors: [{ code, message, detail: e.detail ?? null }] });
    });
    scope.addHook('onRequest', async (_request, reply) => {
      reply.header('docker-distribution-api-version', 'registry/2.0');
    });
    const methods = ['GET', 'HEAD', 'PUT', 'POST', 'PATCH', 'DELETE'];
    const routeConfig = { access: 'public' as const };
    scope.route({
      method: methods,
      url: '/v2',
      config: routeConfig,
      schema: { hide: true },
      handler: dispatch,
    });
    scope.route({
      method: methods,
      url: '/v2/*',
      config: routeConfig,
      schema: { hide: true },
      handler: dispatch,
    });

    /** Garbage collection: admins run it (dry-run with `?dryRun=true`); the `oci.gc` job runs it too. */
    scope.post(
      '/api/docker/gc',
      { config: routeConfig, schema: { hide: true } },
      async (request: FastifyRequest<{ Querystring: { dryRun?: string; graceSecs?: string } }>, reply) => {
        if (!request.principal) throw new OciError(401, 'UNAUTHORIZED', 'Authentication is required');
        if (!request.principal.admin)
          throw new OciError(403, 'DENIED', 'Only administrators run garbage collection');
        const grace =
          request.query.graceSecs !== undefined ? Number(request.query.graceSecs) : config.ociGcGraceSecs;
        if (!Number.isFinite(grace) || grace < 0)
          throw new OciError(400, 'UNSUPPORTED', 'graceSecs must be a non-negative number');
        const report = await garbageCollection({
          graceMs: grace * 1000,
          dryRun: request.query.dryRun === 'true',
          log: request.log as unknown as FormatContext['log'],
        });
        return reply.send(report);
      },
    );
  });
}
