import type { FastifyPluginAsyncZod } from '@fastify/type-provider-zod';
import { z } from 'zod';
import type { Db } from '../../platform/db/index.ts';
import { publicBaseUrl } from '../../platform/http/base-url.ts';
import { listUsers } from './access.service.ts';

const userListItem = z.object({ name: z.string(), uri: z.string(), realm: z.string() });

/** The user list of the public REST API (Artifactory's shape); the access issue adds the rest. */
export function accessRoutes(db: Db, baseUrl?: string): FastifyPluginAsyncZod {
  return async (app) => {
    app.get(
      '/api/security/users',
      {
        config: { access: 'admin' },
        schema: { tags: ['security'], summary: 'List users', response: { 200: z.array(userListItem) } },
      },
      async (request) => {
        const base = publicBaseUrl(request, baseUrl);
        return (await listUsers(db)).map((name) => ({
          name,
          uri: `${base}/api/security/users/${encodeURIComponent(name)}`,
          realm: 'internal',
        }));
      },
    );
  };
}
