import type { FastifyPluginAsyncZod } from '@fastify/type-provider-zod';
import {
  dependenciesAnswerSchema,
  dockerLayersAnswerSchema,
  dockerLayersRequestSchema,
  graphqlRequestSchema,
  propertiesAnswerSchema,
  readmeAnswerSchema,
} from '@granary/contracts';
import type { FastifyReply } from 'fastify';
import { z } from 'zod';
import { NotFoundError } from '../../platform/errors.ts';
import type { Principal } from '../../platform/http/access-control.ts';
import { publicBaseUrl } from '../../platform/http/base-url.ts';
import {
  authorize,
  findArtifact,
  findRepository,
  type RepoConfig,
  type RepositoriesContext,
  repositoryHidden,
  versionDetailsOf,
} from '../repositories/repositories.api.ts';
import { findVersionByLead } from './packages.queries.ts';

const P = '/ui/api/v1/';
const tags = ['packages'];
const fileQuery = z.object({ repoKey: z.string().min(1).max(200), path: z.string().min(1).max(4000) });

interface GraphqlError extends Error {
  errors?: { message: string }[];
}

/** A stored file the caller may read, by repository key and path (401/403/404 as for the file itself). */
async function readableFile(
  ctx: RepositoriesContext,
  principal: Principal | null,
  key: string,
  rawPath: string,
) {
  const path = rawPath.replace(/^\/+/, '');
  const repo = await findRepository(ctx.db, key.replace(/-cache$/, ''));
  if (!repo) throw repositoryHidden(principal, key);
  await authorize(ctx, principal, 'read', repo, path);
  return { repo, path };
}

const versionAt = (ctx: RepositoriesContext, repo: RepoConfig, path: string) =>
  findVersionByLead(ctx.db, repo.id, path);

const artifactAt = (ctx: RepositoriesContext, repo: RepoConfig, path: string) =>
  findArtifact(ctx.db, repo.id, path);

/** An image's layers as the Layers tab shows a version whose format has none: nothing. */
const NO_LAYERS = { layers: [], totalSize: 0, config: null };

/** The packages calls of spec 001 §7 under `/ui/api/v1/`: the graph queries and the version-details calls. */
/** Runs a packages GraphQL query for a request (mercurius, loaded on the first one: see index.ts). */
export type GraphExecute = (
  reply: FastifyReply,
  source: string,
  context: Record<string, unknown>,
  variables: Record<string, unknown> | undefined,
  operationName: string | undefined,
) => Promise<{ data?: unknown; errors?: readonly { message: string }[] }>;

export function packagesRoutes(ctx: RepositoriesContext, execute: GraphExecute): FastifyPluginAsyncZod {
  return async (app) => {
    const graph = async (
      body: z.infer<typeof graphqlRequestSchema>,
      principal: Principal | null,
      reply: FastifyReply,
    ) => {
      try {
        const result = await execute(
          reply,
          body.query,
          { principal, baseUrl: publicBaseUrl(reply.request, ctx.baseUrl) },
          body.variables ?? undefined,
          body.operationName ?? undefined,
        );
        const errors = result.errors?.map((e) => ({ message: e.message }));
        return reply.send(
          errors && errors.length > 0 ? { data: result.data ?? null, errors } : { data: result.data },
        );
      } catch (err) {
        const e = err as GraphqlError;
        if (e.errors)
          return reply.code(400).send({ data: null, errors: e.errors.map((x) => ({ message: x.message })) });
        throw err;
      }
    };
    for (const name of ['packages', 'package', 'versions'])
      app.post(
        `${P}${name}`,
        {
          config: { access: 'public' },
          schema: {
            tags,
            summary: `Packages GraphQL (${name}): a graph-query body {query, variables}`,
            body: graphqlRequestSchema,
          },
        },
        async (request, reply) => graph(request.body, request.principal, reply),
      );

    app.get(
      `${P}packages/readme`,
      {
        config: { access: 'public' },
        schema: {
          tags,
          summary: 'A version readme (raw; the console sanitises)',
          querystring: fileQuery,
          response: { 200: readmeAnswerSchema },
        },
      },
      async (request) => {
        const { repo, path } = await readableFile(
          ctx,
          request.principal,
          request.query.repoKey,
          request.query.path,
        );
        return { readme: (await versionAt(ctx, repo, path))?.readme ?? null };
      },
    );

    app.get(
      `${P}packages/properties`,
      {
        config: { access: 'public' },
        schema: {
          tags,
          summary: 'Properties of a version file',
          querystring: fileQuery,
          response: { 200: propertiesAnswerSchema },
        },
      },
      async (request) => {
        const { repo, path } = await readableFile(
          ctx,
          request.principal,
          request.query.repoKey,
          request.query.path,
        );
        const row = await artifactAt(ctx, repo, path);
        if (!row) throw new NotFoundError(`'${request.query.repoKey}/${path}' not found`);
        const props = (row.properties ?? {}) as Record<string, string[]>;
        return {
          properties: Object.entries(props)
            .map(([name, values]) => ({ name, values: [values].flat().map(String) }))
            .sort((a, b) => a.name.localeCompare(b.name)),
        };
      },
    );

    app.get(
      `${P}packages/dependencies`,
      {
        config: { access: 'public' },
        schema: {
          tags,
          summary: 'Dependencies of a version',
          querystring: fileQuery,
          response: { 200: dependenciesAnswerSchema },
        },
      },
      async (request) => {
        const { repo, path } = await readableFile(
          ctx,
          request.principal,
          request.query.repoKey,
          request.query.path,
        );
        const deps = (await versionAt(ctx, repo, path))?.dependencies ?? [];
        return {
          dependencies: deps.map((d) => ({ name: d.name, range: d.range ?? null, scope: d.scope ?? null })),
        };
      },
    );

    // `packages/builds` (the version Builds tab) is served by the builds module (issue 19).

    app.post(
      `${P}packages/dockerLayers`,
      {
        config: { access: 'public' },
        schema: {
          tags,
          summary: 'Layers of a docker image tag',
          body: dockerLayersRequestSchema,
          response: { 200: dockerLayersAnswerSchema },
        },
      },
      async (request) => {
        const { repo, path } = await readableFile(
          ctx,
          request.principal,
          request.body.repoKey,
          request.body.path,
        );
        // spec 001 §7 docker layers: read by the repository's own format; a format without layers has none.
        return (await versionDetailsOf(ctx, request.principal, repo, path))?.layers ?? NO_LAYERS;
      },
    );

    app.get(
      `${P}packages/download`,
      {
        config: { access: 'public' },
        schema: {
          tags,
          summary: 'Download a version file (redirects to the repository; 403 and 404 as there)',
          querystring: fileQuery,
        },
      },
      async (request, reply) => {
        const { repo, path } = await readableFile(
          ctx,
          request.principal,
          request.query.repoKey,
          request.query.path,
        );
        const row = await artifactAt(ctx, repo, path);
        if (!row) throw new NotFoundError(`'${request.query.repoKey}/${path}' not found`);
        const encoded = path.split('/').map(encodeURIComponent).join('/');
        return reply.redirect(`/repository/${encodeURIComponent(repo.key)}/${encoded}`, 302);
      },
    );
  };
}
