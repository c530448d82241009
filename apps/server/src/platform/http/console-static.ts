import { existsSync, statSync } from 'node:fs';
import path from 'node:path';
import fastifyStatic from '@fastify/static';
import type { FastifyInstance, FastifyReply } from 'fastify';
import { NotFoundError } from './errors.ts';

const HASHED_ASSETS = /^(js|css|assets)\//;
const IMMUTABLE = 'public, max-age=31536000, immutable';

/**
 * Serves the built console at /ui/ with history-mode fallback: a file that exists is sent
 * (hashed assets cached for a year), any other path under /ui/ gets index.html (never cached),
 * except missing hashed assets, which are 404 so the console's chunk-load error handling sees them.
 */
export async function registerConsole(app: FastifyInstance, dir: string): Promise<void> {
  await app.register(fastifyStatic, { root: dir, serve: false, cacheControl: false });
  const index = path.join(dir, 'index.html');

  const sendIndex = (reply: FastifyReply) => {
    if (!existsSync(index)) {
      return reply
        .code(503)
        .type('text/plain; charset=utf-8')
        .send('The console is not built: run `npm run build` (npm start builds it when missing).');
    }
    return reply.header('cache-control', 'no-cache').sendFile('index.html');
  };

  app.get('/ui', { config: { access: 'public' }, schema: { hide: true } }, (_req, reply) =>
    reply.redirect('/ui/'),
  );
  // Unknown console API paths answer as the API does, not with the app's page.
  app.all('/ui/api/*', { config: { access: 'public' }, schema: { hide: true } }, async (request) => {
    throw new NotFoundError(`No route for ${request.method} ${request.url.split('?')[0]}`);
  });
  app.get<{ Params: { '*': string } }>(
    '/ui/*',
    { config: { access: 'public' }, schema: { hide: true } },
    (request, reply) => {
      const rel = request.params['*'];
      if (rel && !rel.split('/').includes('..')) {
        const file = path.join(dir, rel);
        if (file.startsWith(dir + path.sep) && existsSync(file) && statSync(file).isFile()) {
          const cache = HASHED_ASSETS.test(rel) ? IMMUTABLE : 'no-cache';
          return reply.header('cache-control', cache).sendFile(rel);
        }
        if (HASHED_ASSETS.test(rel)) throw new NotFoundError(`No such console file: ${rel}`);
      }
      return sendIndex(reply);
    },
  );
}
