import { existsSync, statSync } from 'node:fs';
import path from 'node:path';
import fastifyStatic from '@fastify/static';
import type { FastifyInstance, FastifyReply } from 'fastify';
import { NotFoundError } from '../errors.ts';

const HASHED_ASSETS = /^(js|css|assets)\//;
const IMMUTABLE = 'public, max-age=31536000, immutable';

/**
 * The console's Content-Security-Policy (issue 12 §22). Scripts only from the server's own files (the
 * built index.html has no inline script). Styles also inline: Ant Design writes its CSS-in-JS into
 * `<style>` elements at run time, and wiring a per-response nonce through index.html into its
 * `ConfigProvider` buys little while scripts stay 'self' only. Images also from `data:` (Ant Design's
 * placeholders) and any `https:` origin (an admin's footer logo URL, badges in package readmes).
 * No framing by anyone (clickjacking), no plugins, no `<base>` or form posts elsewhere.
 */
export const CONSOLE_CSP = [
  "default-src 'self'",
  "script-src 'self'",
  "style-src 'self' 'unsafe-inline'",
  "img-src 'self' data: https:",
  "font-src 'self' data:",
  "connect-src 'self'",
  "object-src 'none'",
  "base-uri 'self'",
  "form-action 'self'",
  "frame-ancestors 'none'",
].join('; ');

/** Headers on every console file: its CSP, no framing, no sniffing, no full URLs in Referer to other sites. */
function consoleHeaders(reply: FastifyReply): FastifyReply {
  return reply
    .header('content-security-policy', CONSOLE_CSP)
    .header('x-frame-options', 'DENY')
    .header('x-content-type-options', 'nosniff')
    .header('referrer-policy', 'same-origin');
}

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
    return consoleHeaders(reply).header('cache-control', 'no-cache').sendFile('index.html');
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
          return consoleHeaders(reply).header('cache-control', cache).sendFile(rel);
        }
        if (HASHED_ASSETS.test(rel)) throw new NotFoundError(`No such console file: ${rel}`);
      }
      return sendIndex(reply);
    },
  );
}
