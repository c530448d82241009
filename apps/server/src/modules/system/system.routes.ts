import type { FastifyPluginAsyncZod } from '@fastify/type-provider-zod';
import { PING_BODY, versionSchema } from '@granary/contracts';
import { z } from 'zod';
import { readVersion } from './version.ts';

/** Health and version: public, cheap, and never touching the database on the hot path. */
export const systemRoutes: FastifyPluginAsyncZod = async (app) => {
  const version = readVersion();
  app.get(
    '/api/system/ping',
    {
      config: { access: 'public' },
      schema: {
        tags: ['system'],
        summary: 'Answers OK once the server serves',
        response: { 200: z.string() },
      },
    },
    async (_request, reply) => reply.type('text/plain; charset=utf-8').send(PING_BODY),
  );
  const versionRoute = {
    config: { access: 'public' as const },
    schema: { tags: ['system'], summary: 'Product version and revision', response: { 200: versionSchema } },
  };
  app.get('/api/system/version', versionRoute, async () => version);
  // spec 000 §7 start-up call `GET system/version`, mounted under the console API prefix.
  app.get('/ui/api/v1/system/version', versionRoute, async () => version);
};
