import type { FastifyPluginAsyncZod } from '@fastify/type-provider-zod';
import {
  storageConsistencyReportSchema,
  storageGcResultSchema,
  storageGcStatusSchema,
} from '@granary/contracts';
import type { Logger } from 'pino';
import { z } from 'zod';
import type { StorageGcService } from './storage-gc.service.ts';

const V1 = '/ui/api/v1';
const tags = ['storage'];
const flag = z
  .enum(['true', 'false', '1', '0'])
  .optional()
  .transform((v) => v === 'true' || v === '1');

/**
 * Blob garbage collection (issue 21), administrators only:
 * `POST /api/system/storage/gc[?dryRun=true]` (Artifactory's path) and the console's
 * `GET|POST /ui/api/v1/storage/gc`, `POST /ui/api/v1/storage/consistency[?repair=true]`.
 */
export const storageGcRoutes =
  (gc: StorageGcService): FastifyPluginAsyncZod =>
  async (app) => {
    const runGc = async (request: { query: { dryRun: boolean }; log: unknown }) =>
      gc.run({ dryRun: request.query.dryRun, log: request.log as Logger });
    const runSchema = {
      tags,
      querystring: z.object({ dryRun: flag }),
      response: { 200: storageGcResultSchema },
    };
    app.post(
      '/api/system/storage/gc',
      {
        config: { access: 'admin' },
        schema: {
          ...runSchema,
          summary: 'Run blob garbage collection now: what it reclaimed (dryRun=true: only what it would)',
        },
      },
      runGc,
    );
    app.post(
      `${V1}/storage/gc`,
      {
        config: { access: 'admin' },
        schema: { ...runSchema, summary: 'Run blob garbage collection now (the storage page)' },
      },
      runGc,
    );
    app.get(
      `${V1}/storage/gc`,
      {
        config: { access: 'admin' },
        schema: {
          tags,
          summary: 'Blob garbage collection: running, progress, last run, what is reclaimable',
          response: { 200: storageGcStatusSchema },
        },
      },
      async (_request, reply) => {
        reply.header('cache-control', 'no-store');
        return gc.status();
      },
    );
    app.post(
      `${V1}/storage/consistency`,
      {
        config: { access: 'admin' },
        schema: {
          tags,
          summary: 'Check the blob store against the reference counts (repair=true: repair what is safe)',
          querystring: z.object({ repair: flag }),
          response: { 200: storageConsistencyReportSchema },
        },
      },
      async (request) => gc.consistency({ repair: request.query.repair, log: request.log as Logger }),
    );
  };
