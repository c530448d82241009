import type { FastifyPluginAsyncZod } from '@fastify/type-provider-zod';
import {
  buildsAnswerSchema,
  dependenciesAnswerSchema,
  dockerLayersAnswerSchema,
  dockerLayersRequestSchema,
  graphqlRequestSchema,
  propertiesAnswerSchema,
  readmeAnswerSchema,
} from '@granary/contracts';
import { and, eq } from 'drizzle-orm';
import type { FastifyReply } from 'fastify';
import { z } from 'zod';
import type { Principal } from '../../platform/http/access-control.ts';
import { NotFoundError } from '../../platform/http/errors.ts';
import { authorize, type RepositoriesContext, repositoryHidden } from '../repositories/context.ts';
import { artifacts } from '../repositories/repositories.schema.ts';
import { findRepository, type RepoConfig } from '../repositories/repositories.service.ts';
import { packages, packageVersions } from './packages.schema.ts';

const P = '/ui/api/v1/';
const tags = ['packages'];
const fileQuery = z.object({ repoKey: z.string().min(1).max(200), path: z.string().min(1).max(4000) });
const MANIFEST_MAX_BYTES = 4 * 1024 * 1024;

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

async function versionAt(ctx: RepositoriesContext, repo: RepoConfig, path: string) {
  const [row] = await ctx.db
    .select({ readme: packageVersions.readme, dependencies: packageVersions.dependencies })
    .from(packageVersions)
    .innerJoin(packages, eq(packages.id, packageVersions.packageId))
    .where(and(eq(packages.repositoryId, repo.id), eq(packageVersions.leadPath, path)));
  return row;
}

async function artifactAt(ctx: RepositoriesContext, repo: RepoConfig, path: string) {
  const [row] = await ctx.db
    .select()
    .from(artifacts)
    .where(and(eq(artifacts.repositoryId, repo.id), eq(artifacts.path, path)));
  return row;
}

async function readBlob(ctx: RepositoriesContext, sha256: string, max: number): Promise<Buffer | null> {
  const stat = await ctx.blobs.stat(sha256);
  if (!stat || stat.size > max) return null;
  const chunks: Buffer[] = [];
  for await (const chunk of await ctx.blobs.get(sha256)) chunks.push(chunk as Buffer);
  return Buffer.concat(chunks);
}

/** spec 001 §7 `POST docker layers`: an image tag's layers from its stored manifest (and config history). */
async function dockerLayers(ctx: RepositoriesContext, repo: RepoConfig, path: string) {
  const empty = { layers: [], totalSize: 0, config: null };
  if (repo.packageType !== 'docker' && repo.packageType !== 'oci') return empty;
  const manifestPath = /(^|\/)(list\.)?manifest\.json$/.test(path)
    ? path
    : `${path.replace(/\/$/, '')}/manifest.json`;
  const row = await artifactAt(ctx, repo, manifestPath);
  if (!row) return empty;
  const bytes = await readBlob(ctx, row.sha256, MANIFEST_MAX_BYTES);
  if (!bytes) return empty;
  let manifest: {
    config?: { digest?: string; size?: number };
    layers?: { digest?: string; size?: number; mediaType?: string }[];
  };
  try {
    manifest = JSON.parse(bytes.toString('utf8'));
  } catch {
    return empty;
  }
  const layers = Array.isArray(manifest.layers) ? manifest.layers : [];
  // Commands from the config's history, in order, skipping the entries that made no layer.
  let commands: (string | null)[] = [];
  const configDigest = manifest.config?.digest;
  if (configDigest?.startsWith('sha256:')) {
    const config = await readBlob(ctx, configDigest.slice(7), MANIFEST_MAX_BYTES).catch(() => null);
    try {
      const history = config ? (JSON.parse(config.toString('utf8')).history ?? []) : [];
      if (Array.isArray(history))
        commands = history
          .filter((h: { empty_layer?: boolean }) => !h?.empty_layer)
          .map((h: { created_by?: string }) => (typeof h?.created_by === 'string' ? h.created_by : null));
    } catch {
      commands = [];
    }
  }
  const out = layers.map((l, index) => ({
    index,
    digest: String(l.digest ?? ''),
    size: Number(l.size ?? 0),
    mediaType: String(l.mediaType ?? ''),
    command: commands[index] ?? null,
  }));
  return {
    layers: out,
    totalSize: out.reduce((n, l) => n + l.size, 0) + Number(manifest.config?.size ?? 0),
    config: configDigest ? { digest: configDigest, size: Number(manifest.config?.size ?? 0) } : null,
  };
}

/** The packages calls of spec 001 §7 under `/ui/api/v1/`: the graph queries and the version-details calls. */
export function packagesRoutes(ctx: RepositoriesContext): FastifyPluginAsyncZod {
  return async (app) => {
    const graph = async (
      body: z.infer<typeof graphqlRequestSchema>,
      principal: Principal | null,
      reply: FastifyReply,
    ) => {
      try {
        const result = await reply.graphql(
          body.query,
          { principal } as never,
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

    app.get(
      `${P}packages/builds`,
      {
        config: { access: 'public' },
        schema: {
          tags,
          summary: 'Builds that produced a version (none until builds exist)',
          querystring: fileQuery,
          response: { 200: buildsAnswerSchema },
        },
      },
      async (request) => {
        await readableFile(ctx, request.principal, request.query.repoKey, request.query.path);
        return { builds: [] };
      },
    );

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
        return dockerLayers(ctx, repo, path);
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
