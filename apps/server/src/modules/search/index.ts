import type { FastifyPluginAsyncZod } from '@fastify/type-provider-zod';
import {
  ARTIFACT_SEARCH_KINDS,
  type ArtifactSearchAnswer,
  artifactSearchAnswerSchema,
  artifactSearchRequestSchema,
  restArchiveSearchAnswerSchema,
  restSearchAnswerSchema,
} from '@granary/contracts';
import type { FastifyInstance, FastifyRequest } from 'fastify';
import { z } from 'zod';
import { publicBaseUrl } from '../../platform/http/base-url.ts';
import { archiveIndexingEnabled } from '../packages/packages.api.ts';
import type { RepositoriesContext } from '../repositories/repositories.api.ts';
import { ArtifactSearch } from './search.service.ts';

const tags = ['search'];
/**
 * `GET ui/artifactsearch/status` (spec 001 §4: archive search falls back to quick search when archive
 * indexing is not enabled). Kept out of the contracts package, which the login route loads whole.
 */
const artifactSearchStatusSchema = z.object({ archiveIndexing: z.boolean() });
const reposParam = z.string().max(4000).optional();
const repoList = (repos: string | undefined) =>
  repos
    ?.split(',')
    .map((r) => r.trim())
    .filter((r) => r !== '');

function restAnswer(request: FastifyRequest, baseUrl: string | undefined, answer: ArtifactSearchAnswer) {
  const base = publicBaseUrl(request, baseUrl);
  const encode = (p: string) => p.split('/').map(encodeURIComponent).join('/');
  return {
    results: answer.results.map((r) => ({
      uri: `${base}/api/storage/${encodeURIComponent(r.repoKey)}/${encode(r.path)}`,
      repo: r.repoKey,
      path: r.path,
    })),
  };
}

/** Artifact search: REST `/api/search/*` (DESIGN.md "Public REST API") and the console's `ui/artifactsearch/{kind}`. */
function searchRoutes(ctx: RepositoriesContext): FastifyPluginAsyncZod {
  const search = new ArtifactSearch(ctx);
  return async (app) => {
    app.get(
      '/ui/api/v1/ui/artifactsearch/status',
      {
        config: { access: 'public' },
        schema: {
          tags,
          summary: 'What the artifact search can do here (archive entries indexed or not)',
          response: { 200: artifactSearchStatusSchema },
        },
      },
      async () => ({ archiveIndexing: archiveIndexingEnabled() }),
    );

    app.post(
      '/ui/api/v1/ui/artifactsearch/:kind',
      {
        config: { access: 'public' },
        schema: {
          tags,
          summary: 'Artifact search for the console: quick, checksum, property, gavc or archive',
          params: z.object({ kind: z.enum(ARTIFACT_SEARCH_KINDS) }),
          body: artifactSearchRequestSchema,
          response: { 200: artifactSearchAnswerSchema },
        },
      },
      async (request) => search.search(request.principal, request.params.kind, request.body),
    );

    app.get(
      '/api/search/artifact',
      {
        config: { access: 'public' },
        schema: {
          tags,
          summary: 'Files by name (wildcards * and ?)',
          querystring: z.object({ name: z.string().min(1).max(1000), repos: reposParam }),
          response: { 200: restSearchAnswerSchema },
        },
      },
      async (request) => {
        const answer = await search.search(
          request.principal,
          'quick',
          { query: request.query.name, repos: repoList(request.query.repos) },
          { exactName: true },
        );
        return restAnswer(request, ctx.baseUrl, answer);
      },
    );

    app.get(
      '/api/search/checksum',
      {
        config: { access: 'public' },
        schema: {
          tags,
          summary: 'Files by checksum',
          querystring: z.object({
            sha256: z.string().optional(),
            sha1: z.string().optional(),
            md5: z.string().optional(),
            repos: reposParam,
          }),
          response: { 200: restSearchAnswerSchema },
        },
      },
      async (request) => {
        const { sha256, sha1, md5 } = request.query;
        const answer = await search.search(request.principal, 'checksum', {
          checksum: sha256 ?? sha1 ?? md5 ?? '',
          repos: repoList(request.query.repos),
        });
        return restAnswer(request, ctx.baseUrl, answer);
      },
    );

    app.get(
      '/api/search/prop',
      {
        config: { access: 'public' },
        schema: {
          tags,
          summary:
            'Files by properties: ?key=value[,value2]&other=… (all keys must match; values are alternatives)',
          querystring: z.record(z.string(), z.string()),
          response: { 200: restSearchAnswerSchema },
        },
      },
      async (request) => {
        const { repos, ...props } = request.query;
        // Each key must match; comma-separated values are alternatives.
        const keys = Object.keys(props);
        let answer: ArtifactSearchAnswer = { results: [], limitReached: false };
        if (keys.length === 0) {
          await search.search(request.principal, 'property', { properties: [] });
          return { results: [] };
        }
        const combos = keys.map((k) => (props[k] ?? '').split(',').map((v) => ({ key: k, value: v })));
        const seen = new Map<string, ArtifactSearchAnswer['results'][number]>();
        const first = combos[0]!;
        for (const alt of first) {
          const part = await search.search(request.principal, 'property', {
            properties: [alt],
            repos: repoList(repos),
          });
          for (const r of part.results) seen.set(`${r.repoKey}/${r.path}`, r);
        }
        // The remaining keys narrow the first key's hits.
        for (const alts of combos.slice(1)) {
          const keep = new Set<string>();
          for (const alt of alts) {
            const part = await search.search(request.principal, 'property', {
              properties: [alt],
              repos: repoList(repos),
            });
            for (const r of part.results) keep.add(`${r.repoKey}/${r.path}`);
          }
          for (const k of [...seen.keys()]) if (!keep.has(k)) seen.delete(k);
        }
        answer = { results: [...seen.values()], limitReached: false };
        return restAnswer(request, ctx.baseUrl, answer);
      },
    );

    app.get(
      '/api/search/gavc',
      {
        config: { access: 'public' },
        schema: {
          tags,
          summary: 'Maven files by group, artifact, version, classifier',
          querystring: z.object({
            g: z.string().optional(),
            a: z.string().optional(),
            v: z.string().optional(),
            c: z.string().optional(),
            repos: reposParam,
          }),
          response: { 200: restSearchAnswerSchema },
        },
      },
      async (request) => {
        const { g, a, v, c, repos } = request.query;
        const answer = await search.search(request.principal, 'gavc', {
          groupId: g,
          artifactId: a,
          version: v,
          classifier: c,
          repos: repoList(repos),
        });
        return restAnswer(request, ctx.baseUrl, answer);
      },
    );

    app.get(
      '/api/search/archive',
      {
        config: { access: 'public' },
        schema: {
          tags,
          summary: 'Archive entries (classes and files inside jars and zips) by name',
          querystring: z.object({ name: z.string().min(1).max(1000), repos: reposParam }),
          response: { 200: restArchiveSearchAnswerSchema },
        },
      },
      async (request) => {
        const answer = await search.search(request.principal, 'archive', {
          query: request.query.name,
          repos: repoList(request.query.repos),
        });
        const base = publicBaseUrl(request, ctx.baseUrl);
        const byEntry = new Map<string, string[]>();
        for (const r of answer.results) {
          const uri = `${base}/api/storage/${encodeURIComponent(r.repoKey)}/${r.path.split('/').map(encodeURIComponent).join('/')}`;
          byEntry.set(r.entry ?? '', [...(byEntry.get(r.entry ?? '') ?? []), uri]);
        }
        return { results: [...byEntry].map(([entry, archiveUris]) => ({ entry, archiveUris })) };
      },
    );
  };
}

export async function registerSearch(app: FastifyInstance, ctx: RepositoriesContext): Promise<void> {
  await app.register(searchRoutes(ctx));
}
