import type { Readable } from 'node:stream';
import type { FastifyInstance, FastifyReply, FastifyRequest } from 'fastify';
import type { ExpectedChecksums } from '../../platform/blobs/index.ts';
import { ForbiddenError, InvalidError, NotSupportedError } from '../../platform/errors.ts';
import { publicBaseUrl } from '../../platform/http/base-url.ts';
import { keepAnswers } from '../../platform/http/response-cache.ts';
import type { ArtifactRow } from './artifacts.queries.ts';
import { listChildren } from './artifacts.queries.ts';
import {
  deleteArtifacts,
  deployArtifact,
  type Properties,
  refuseInternalPath,
  resolveForRead,
} from './artifacts.service.ts';
import type { RepositoriesContext } from './context.ts';
import { createRequestContext } from './format-context.ts';
import { visibleChild } from './internal-paths.ts';
import { mimeTypeOf } from './mime.ts';
import { INVALID_PATH, RepoPath } from './repo-path.ts';
import { findRepository } from './repositories.service.ts';
import { folderHtml, inertHeaders, sendArtifact } from './serve.ts';

type WildcardRequest = FastifyRequest<{ Params: { key: string; '*'?: string } }>;

const CHECKSUM_LENGTHS = { sha256: 64, sha1: 40, md5: 32 } as const;

function expectedChecksums(request: FastifyRequest): ExpectedChecksums {
  const expected: ExpectedChecksums = {};
  for (const [kind, length] of Object.entries(CHECKSUM_LENGTHS) as [
    keyof typeof CHECKSUM_LENGTHS,
    number,
  ][]) {
    const value = request.headers[`x-checksum-${kind}`];
    if (value === undefined) continue;
    if (typeof value !== 'string' || !new RegExp(`^[0-9a-fA-F]{${length}}$`).test(value))
      throw new InvalidError(
        `X-Checksum-${kind[0]!.toUpperCase()}${kind.slice(1)} is not a ${kind} hex digest`,
      );
    expected[kind] = value.toLowerCase();
  }
  const length = request.headers['content-length'];
  if (length && /^\d+$/.test(length) && request.headers['transfer-encoding'] === undefined)
    expected.size = Number(length);
  return expected;
}

/** The answer of a deploy, as Artifactory gives it. */
export function deployAnswer(
  request: FastifyRequest,
  baseUrl: string | undefined,
  repoKey: string,
  a: ArtifactRow,
) {
  const base = publicBaseUrl(request, baseUrl);
  const checksums = { sha1: a.sha1, md5: a.md5, sha256: a.sha256 };
  return {
    repo: repoKey,
    path: `/${a.path}`,
    created: a.createdAt.toISOString(),
    createdBy: a.createdBy,
    downloadUri: `${base}/repository/${repoKey}/${a.path}`,
    mimeType: a.mimeType ?? mimeTypeOf(a.path),
    size: String(a.size),
    checksums,
    originalChecksums: checksums,
    uri: `${base}/api/storage/${repoKey}/${a.path}`,
  };
}

/**
 * Every repository's generic client endpoint `/repository/{key}/{path}`: PUT streams the body
 * into the blob store (any content type, not bound by the JSON body limit), GET/HEAD serve files
 * and folder listings, DELETE removes a file or folder. Permission is asked per request on the
 * canonical path (RepoPath).
 */
export async function registerArtifactRoutes(app: FastifyInstance, ctx: RepositoriesContext): Promise<void> {
  await app.register(async (scope) => {
    // Bodies here are artifact bytes: left unread for the handler to stream.
    scope.removeAllContentTypeParsers();
    scope.addContentTypeParser('*', (_request, _payload, done) => done(null));
    // Slow clients and too many uploads from one address are refused before any byte is stored.
    scope.addHook('onRequest', app.granary.uploads.onRequest);
    // Small answers of repeated reads are kept for the response cache (platform/http/response-cache.ts).
    keepAnswers(scope, app.granary.responseCache);

    const pathOf = (request: WildcardRequest, matrix?: Map<string, string[]>) =>
      RepoPath.parse(request.params.key, request.params['*'] ?? '', matrix);
    const config = { access: 'public' as const };

    /** The repository's format answers first (npm packuments, PyPI simple pages, …); true when it did. */
    const formatHandled = async (request: WildcardRequest, reply: FastifyReply): Promise<boolean> => {
      const repo = await findRepository(ctx.db, request.params.key);
      if (repo) request.repoType = repo.packageType;
      const format = repo && ctx.formats.get(repo.packageType);
      if (!repo || !format?.handle) return false;
      return format.handle(
        {
          method: request.method,
          path: (request.params['*'] ?? '').replace(/^\/+/, ''),
          query: request.query as Record<string, string | undefined>,
          headers: request.headers,
          body: request.raw as Readable,
          raw: request,
        },
        reply,
        createRequestContext(ctx, request, repo),
      );
    };
    scope.addHook('preHandler', async (request, reply) => {
      // `;k=v` path parameters are deploy properties: on any other request they would only make one
      // path look like another (issue 12 §6), so they are refused before a format reads the path.
      if (request.method !== 'PUT' && ((request as WildcardRequest).params['*'] ?? '').includes(';'))
        throw new InvalidError(
          'Path parameters (;name=value) are only accepted when deploying',
          INVALID_PATH,
        );
      if (await formatHandled(request as WildcardRequest, reply)) return reply;
    });
    scope.route({
      method: ['POST', 'PATCH'],
      url: '/repository/:key/*',
      config,
      schema: { hide: true },
      handler: async (request: WildcardRequest) => {
        pathOf(request);
        throw new NotSupportedError(`${request.method} is not supported here`);
      },
    });

    scope.put(
      '/repository/:key/*',
      { config, schema: { hide: true } },
      async (request: WildcardRequest, reply) => {
        const matrix = new Map<string, string[]>();
        const path = pathOf(request, matrix);
        await refuseInternalPath(ctx, request.principal, path, 'write');
        const properties: Properties = Object.fromEntries(matrix);
        const { repo, artifact } = await deployArtifact(
          ctx,
          request.principal,
          path,
          {
            expected: expectedChecksums(request),
            byChecksum: String(request.headers['x-checksum-deploy']).toLowerCase() === 'true',
            properties,
          },
          request.raw as Readable,
        );
        return reply.code(201).send(deployAnswer(request, ctx.baseUrl, repo.key, artifact));
      },
    );

    const read = async (request: WildcardRequest, reply: FastifyReply) => {
      const path = pathOf(request);
      await refuseInternalPath(ctx, request.principal, path, 'read');
      const head = request.method === 'HEAD';
      const resolved = await resolveForRead(ctx, request.principal, path, {
        stream: !head && !request.headers.range && !request.headers['if-none-match'],
      });
      if (resolved.kind === 'file') return sendArtifact(request, reply, ctx, resolved.artifact);
      if (
        resolved.kind === 'stream' &&
        (await ctx.artifactExtensions.holdsUpstreamFiles(resolved.repo.key))
      ) {
        // Cached whole, then served through the download gate (issue 16: never before its verdict).
        resolved.stream.resume();
        const row = await resolved.done;
        if (!row) throw new ForbiddenError(`'${path.path}' cannot be served before it is cached and scanned`);
        return sendArtifact(request, reply, ctx, row);
      }
      if (resolved.kind === 'stream') {
        inertHeaders(reply, path.name, mimeTypeOf(path.name));
        if (resolved.size !== undefined) reply.header('content-length', String(resolved.size));
        if (head) {
          resolved.stream.destroy();
          return reply.code(200).send();
        }
        return reply.code(200).send(resolved.stream);
      }
      if (!path.folderHint) {
        const url = request.url.split('?')[0]!;
        return reply.redirect(`${url}/`, 302);
      }
      const names = new Map<string, boolean>();
      for (const member of resolved.members)
        if (member.rclass !== 'virtual')
          for (const c of await listChildren(ctx.db, member.id, resolved.path))
            if (visibleChild(ctx, member.packageType, resolved.path, c.name))
              names.set(c.name, (names.get(c.name) ?? false) || c.folder);
      const children = [...names].map(([name, folder]) => ({ name, folder }));
      children.sort((a, b) => (a.folder === b.folder ? (a.name < b.name ? -1 : 1) : a.folder ? -1 : 1));
      reply
        .type('text/html; charset=utf-8')
        .header('x-content-type-options', 'nosniff')
        .header('content-security-policy', "default-src 'none'; style-src 'unsafe-inline'");
      if (head) return reply.code(200).send();
      return reply
        .code(200)
        .send(
          folderHtml(`${resolved.key}/${resolved.path}${resolved.path ? '/' : ''}`, children, path.isRoot),
        );
    };
    scope.route({
      method: ['GET', 'HEAD'],
      url: '/repository/:key/*',
      config,
      schema: { hide: true },
      handler: read,
    });
    scope.route({
      method: ['GET', 'HEAD'],
      url: '/repository/:key',
      config,
      schema: { hide: true },
      handler: async (request: WildcardRequest, reply) => {
        RepoPath.parse(request.params.key, '');
        return reply.redirect(`${request.url.split('?')[0]}/`, 302);
      },
    });

    scope.delete(
      '/repository/:key/*',
      { config, schema: { hide: true } },
      async (request: WildcardRequest, reply) => {
        const path = pathOf(request);
        await refuseInternalPath(ctx, request.principal, path, 'delete');
        // The service tells the repository's format (`afterChange`) once the delete is committed.
        await deleteArtifacts(ctx, request.principal, path);
        return reply.code(204).send();
      },
    );
  });
}
