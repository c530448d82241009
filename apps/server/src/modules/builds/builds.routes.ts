import type { FastifyPluginAsyncZod } from '@fastify/type-provider-zod';
import {
  artifactBuildsAnswerSchema,
  buildDeleteRequestSchema,
  buildDiffAnswerSchema,
  buildHistoryAnswerSchema,
  buildNamesAnswerSchema,
  buildPromotionAnswerSchema,
  buildPromotionRequestSchema,
  buildRetentionRequestSchema,
  buildRunAnswerSchema,
  buildRunDetailsSchema,
  buildRunsAnswerSchema,
  buildsListAnswerSchema,
  PROVENANCE_MEDIA_TYPE,
} from '@granary/contracts';
import type { FastifyRequest } from 'fastify';
import { z } from 'zod';
import { InvalidError } from '../../platform/errors.ts';
import { publicBaseUrl } from '../../platform/http/base-url.ts';
import { antMatch } from '../access/ant-pattern.ts';
import {
  buildsOfFile,
  diffRuns,
  listBuilds,
  provenanceOf,
  restBuildList,
  restBuildRuns,
  runDetails,
  runItem,
  runsOf,
} from './builds.read.ts';
import {
  appendModules,
  applyRetention,
  type BuildsContext,
  buildInfoOf,
  deleteBuilds,
  findRun,
  parseBody,
  promoteBuild,
  publishBuild,
} from './builds.service.ts';

const tags = ['builds'];
const UI = '/ui/api/v1/';
const publicAccess = { access: 'public' as const };
const signedIn = { access: 'authenticated' as const };
const nameParams = z.object({ name: z.string() });
const runParams = z.object({ name: z.string(), number: z.string() });
const flag = z
  .union([z.literal('0'), z.literal('1'), z.literal('true'), z.literal('false')])
  .optional()
  .transform((v) => v === '1' || v === 'true');

/** Bodies arrive as text (see the parser below): parsed here with the contract's schema. */
const text = (request: FastifyRequest) => (typeof request.body === 'string' ? request.body : '');

/**
 * Builds (issue 19): Artifactory's `/api/build` REST (DESIGN.md "Public REST API"; the provenance
 * statement is Granary's own, `GET /api/build/{name}/{number}/provenance`) and the console's calls.
 * Reading routes are public: the build permission targets decide (a build the caller may not read is
 * not found). Bodies are read as text, so the build-info document is stored exactly as sent.
 */
export function buildsRoutes(ctx: BuildsContext): FastifyPluginAsyncZod {
  return async (app) => {
    // In this plugin only: JSON bodies as text (JFrog CLI sends `application/vnd.org.jfrog.*+json`).
    app.removeAllContentTypeParsers();
    for (const type of [['application/json', 'text/plain'], /^application\/vnd\.org\.jfrog\..*json/])
      app.addContentTypeParser(type, { parseAs: 'string' }, (_request, body, done) => done(null, body));
    const base = (request: FastifyRequest) => publicBaseUrl(request, ctx.repositories.baseUrl);

    app.put(
      '/api/build',
      {
        config: signedIn,
        schema: {
          tags,
          summary: 'Publish a build-info document (stored unmodified); 204',
          description:
            'The JFrog build-info JSON as CI tools publish it. A run with the same name, number and started time is refused with 409.',
        },
      },
      async (request, reply) => {
        await publishBuild(ctx, request.principal, text(request));
        return reply.code(204).send();
      },
    );

    app.post(
      '/api/build/append/:name/:number',
      {
        config: signedIn,
        schema: {
          tags,
          summary: 'Add modules to a published run ({modules: [...]}); 204',
          params: runParams,
        },
      },
      async (request, reply) => {
        await appendModules(
          ctx,
          request.principal,
          request.params.name,
          request.params.number,
          text(request),
        );
        return reply.code(204).send();
      },
    );

    app.get(
      '/api/build',
      {
        config: publicAccess,
        schema: { tags, summary: 'Every build', response: { 200: buildsListAnswerSchema } },
      },
      async (request) => restBuildList(ctx, request.principal, base(request)),
    );

    app.get(
      '/api/build/:name',
      {
        config: publicAccess,
        schema: {
          tags,
          summary: 'The runs of a build',
          params: nameParams,
          response: { 200: buildRunsAnswerSchema },
        },
      },
      async (request) => restBuildRuns(ctx, request.principal, request.params.name, base(request)),
    );

    app.get(
      '/api/build/:name/:number',
      {
        config: publicAccess,
        schema: {
          tags,
          summary: 'One run ({buildInfo, uri}); with ?diff={older number}, the difference from an older run',
          params: runParams,
          querystring: z.object({ diff: z.string().min(1).optional(), started: z.string().optional() }),
          response: { 200: z.union([buildRunAnswerSchema, buildDiffAnswerSchema]) },
        },
      },
      async (request) => {
        const { name, number } = request.params;
        if (request.query.diff) return diffRuns(ctx, request.principal, name, number, request.query.diff);
        const run = await findRun(ctx, request.principal, name, number);
        return {
          uri: `${base(request)}/api/build/${encodeURIComponent(name)}/${encodeURIComponent(number)}`,
          buildInfo: await buildInfoOf(ctx, run),
        };
      },
    );

    app.get(
      '/api/build/:name/:number/provenance',
      {
        config: publicAccess,
        schema: {
          tags,
          summary: 'The run as an in-toto Statement v1 with a SLSA provenance v1 predicate (a download)',
          params: runParams,
        },
      },
      async (request, reply) => {
        const { name, number } = request.params;
        const statement = await provenanceOf(ctx, request.principal, name, number, base(request));
        const file = `${name}-${number}.intoto.json`.replace(/[^A-Za-z0-9._-]/g, '_');
        return reply
          .header('content-type', PROVENANCE_MEDIA_TYPE)
          .header('content-disposition', `attachment; filename="${file}"`)
          .send(JSON.stringify(statement, null, 2));
      },
    );

    app.delete(
      '/api/build/:name',
      {
        config: signedIn,
        schema: {
          tags,
          summary: 'Delete runs: ?buildNumbers=1,2 or ?deleteAll=1; &artifacts=1 deletes their files too',
          params: nameParams,
          querystring: z.object({
            buildNumbers: z.string().optional(),
            artifacts: flag,
            deleteAll: flag,
            project: z.string().optional(),
          }),
        },
      },
      async (request, reply) => {
        const result = await deleteBuilds(ctx, request.principal, {
          buildName: request.params.name,
          buildNumbers: (request.query.buildNumbers ?? '')
            .split(',')
            .map((n) => n.trim())
            .filter(Boolean),
          deleteArtifacts: request.query.artifacts,
          deleteAll: request.query.deleteAll,
        });
        return reply.type('text/plain').send(result.message);
      },
    );

    app.post(
      '/api/build/delete',
      {
        config: signedIn,
        schema: { tags, summary: 'Delete runs ({buildName, buildNumbers, deleteArtifacts, deleteAll})' },
      },
      async (request, reply) => {
        const body = parseBody(text(request), buildDeleteRequestSchema, 'The delete request');
        const result = await deleteBuilds(ctx, request.principal, body);
        return reply.type('text/plain').send(result.message);
      },
    );

    app.post(
      '/api/build/retention/:name',
      {
        config: signedIn,
        schema: {
          tags,
          summary:
            'Discard old runs ({count, minimumBuildDate, deleteBuildArtifacts, buildNumbersNotToBeDiscarded}); ?async=true queues it; 204',
          params: nameParams,
          querystring: z.object({ async: flag }),
        },
      },
      async (request, reply) => {
        const rule = parseBody(text(request), buildRetentionRequestSchema, 'The retention rule');
        if (rule.count === undefined && rule.minimumBuildDate === undefined)
          throw new InvalidError('Give a count or a minimumBuildDate');
        await applyRetention(ctx, request.principal, request.params.name, rule, {
          async: request.query.async,
        });
        return reply.code(204).send();
      },
    );

    app.post(
      '/api/build/promote/:name/:number',
      {
        config: signedIn,
        schema: {
          tags,
          summary:
            'Promote a run: move or copy its files to a repository and record the status (all or nothing)',
          params: runParams,
          response: { 200: buildPromotionAnswerSchema },
        },
      },
      async (request) => {
        const body = parseBody(text(request) || '{}', buildPromotionRequestSchema, 'The promotion');
        return promoteBuild(ctx, request.principal, request.params.name, request.params.number, body);
      },
    );

    // --- the console's calls ---------------------------------------------------------------------

    app.get(
      `${UI}ui/builds/names`,
      {
        config: publicAccess,
        schema: {
          tags,
          summary: 'Builds the caller may read, with the last run and its status (?search= filters names)',
          querystring: z.object({ search: z.string().max(255).optional() }),
          response: { 200: buildNamesAnswerSchema },
        },
      },
      async (request) => ({ builds: await listBuilds(ctx, request.principal, request.query.search) }),
    );

    app.post(
      `${UI}ui/permissiontargets/buildPatterns`,
      {
        config: { access: 'admin' },
        schema: {
          tags,
          summary: 'Builds matching include patterns (permission targets, webhooks): {includePatterns}',
          response: { 200: z.object({ builds: z.array(z.object({ name: z.string() })) }) },
        },
      },
      async (request) => {
        const body = parseBody(
          text(request) || '{}',
          z.looseObject({ includePatterns: z.array(z.string()).optional() }),
          'The patterns',
        );
        const patterns = body.includePatterns ?? [];
        const all = await listBuilds(ctx, request.principal);
        return {
          builds: all.filter((b) => patterns.some((p) => antMatch(p, b.name))).map((b) => ({ name: b.name })),
        };
      },
    );

    app.get(
      `${UI}ui/builds/history/:name`,
      {
        config: publicAccess,
        schema: {
          tags,
          summary: 'The runs of a build',
          params: nameParams,
          response: { 200: buildHistoryAnswerSchema },
        },
      },
      async (request) => ({
        name: request.params.name,
        runs: (await runsOf(ctx, request.principal, request.params.name)).map(runItem),
      }),
    );

    app.get(
      `${UI}ui/builds/:name/:number`,
      {
        config: publicAccess,
        schema: {
          tags,
          summary:
            'A run: modules, artifacts, dependencies (with vulnerability counts), environment, issues, VCS, statuses',
          params: runParams,
          response: { 200: buildRunDetailsSchema },
        },
      },
      async (request) => runDetails(ctx, request.principal, request.params.name, request.params.number),
    );

    const fileQuery = z.object({ repoKey: z.string().min(1), path: z.string().min(1) });
    for (const url of [`${UI}builds`, `${UI}packages/builds`])
      app.get(
        url,
        {
          config: publicAccess,
          schema: {
            tags,
            summary: 'Builds that produced or used a stored file (the version Builds tab)',
            querystring: fileQuery,
            response: { 200: artifactBuildsAnswerSchema },
          },
        },
        async (request) => buildsOfFile(ctx, request.principal, request.query.repoKey, request.query.path),
      );
  };
}
