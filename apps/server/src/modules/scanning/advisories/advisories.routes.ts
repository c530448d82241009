import type { Readable } from 'node:stream';
import type { FastifyPluginAsyncZod } from '@fastify/type-provider-zod';
import {
  advisoryImportRequestSchema,
  advisoryImportResultSchema,
  advisoryStatusSchema,
  customIssueSchema,
} from '@granary/contracts';
import { z } from 'zod';
import { InvalidError } from '../../../platform/errors.ts';
import { documentedAs } from '../openapi-docs.ts';
import type { AdvisoryDatabase } from './advisory-database.ts';

const tags = ['scanning'];
const admin = { access: 'admin' as const };
const UI = '/ui/api/v1/xray/ui';
const ZIP_TYPES = ['application/zip', 'application/x-zip-compressed', 'application/octet-stream'];
const idParams = z.object({ id: z.string().min(1).max(128) });
// Checked by the service with the contracts' rules (messages name the field).
const anyBody = z.record(z.string(), z.unknown());

/**
 * The advisory database's routes (issue 16), administrators only: the OSV import (an archive as the
 * body, or `{url}` / `{path}`) and its status, at `/api/scanning/advisories/…` and as the console's
 * `/xray/ui/advisories/…` calls; the custom issues of spec 001 §7 at `/xray/ui/customIssue`.
 */
export function advisoriesRoutes(advisories: AdvisoryDatabase): FastifyPluginAsyncZod {
  return async (app) => {
    await app.register(async (scope) => {
      // The archive streams to a temp file; it is not held in memory nor bound by the JSON body limit.
      scope.addContentTypeParser(ZIP_TYPES, (_request, payload, done) => done(null, payload));
      for (const url of ['/api/scanning/advisories/import', `${UI}/advisories/import`]) {
        scope.post(
          url,
          {
            config: admin,
            schema: {
              tags,
              hide: url.startsWith(UI),
              summary:
                'Imports an OSV archive (all.zip of {id}.json): the archive as the body (application/zip), or JSON {url} or {path}',
              consumes: ['application/json', ...ZIP_TYPES],
              body: documentedAs(
                advisoryImportRequestSchema,
                'JSON {url} or {path}; or the OSV archive itself as application/zip',
              ),
              response: { 200: advisoryImportResultSchema },
            },
          },
          async (request) => {
            const by = request.principal?.name ?? null;
            const type = (request.headers['content-type'] ?? '').split(';')[0]!.trim().toLowerCase();
            if (ZIP_TYPES.includes(type))
              return advisories.importArchive(request.body as Readable, { source: 'upload', by });
            const body = (request.body ?? {}) as { url?: unknown; path?: unknown };
            if (typeof body.url === 'string' && body.url) return advisories.importFrom({ url: body.url }, by);
            if (typeof body.path === 'string' && body.path)
              return advisories.importFrom({ path: body.path }, by);
            throw new InvalidError(
              'Send an OSV archive as application/zip, or JSON {"url": …} or {"path": …}',
            );
          },
        );
      }
    });
    for (const url of ['/api/scanning/advisories/status', `${UI}/advisories/status`]) {
      app.get(
        url,
        {
          config: admin,
          schema: {
            tags,
            hide: url.startsWith(UI),
            summary: 'Advisory database status: records per ecosystem, last import',
            response: { 200: advisoryStatusSchema },
          },
        },
        async () => advisories.status(),
      );
    }
    app.get(
      `${UI}/customIssue`,
      { config: admin, schema: { tags, hide: true, response: { 200: z.array(customIssueSchema) } } },
      async () => advisories.listCustomIssues(),
    );
    app.post(
      `${UI}/customIssue`,
      { config: admin, schema: { tags, hide: true, body: anyBody, response: { 201: customIssueSchema } } },
      async (request, reply) => {
        const issue = await advisories.saveCustomIssue(request.body, { create: true });
        return reply.code(201).send(issue);
      },
    );
    app.get(
      `${UI}/customIssue/:id`,
      { config: admin, schema: { tags, hide: true, params: idParams, response: { 200: customIssueSchema } } },
      async (request) => advisories.getCustomIssue(request.params.id),
    );
    app.put(
      `${UI}/customIssue/:id`,
      {
        config: admin,
        schema: { tags, hide: true, params: idParams, body: anyBody, response: { 200: customIssueSchema } },
      },
      async (request) =>
        advisories.saveCustomIssue(
          { ...request.body, id: request.body.id ?? request.params.id },
          { create: false, id: request.params.id },
        ),
    );
    app.delete(
      `${UI}/customIssue/:id`,
      { config: admin, schema: { tags, hide: true, params: idParams } },
      async (request, reply) => {
        await advisories.deleteCustomIssue(request.params.id);
        return reply.code(204).send();
      },
    );
  };
}
