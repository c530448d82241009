import path from 'node:path';
import type { FastifyInstance, FastifyReply } from 'fastify';
import type { FormatCore } from '../sdk/format.ts';
import { blobs } from './blob-handlers.ts';
import { catalog, ping, referrers, tags } from './listing-handlers.ts';
import { gcEndpoint, registerOciJobs } from './maintenance.ts';
import { manifests } from './manifest-handlers.ts';
import { OciError } from './oci.ts';
import { registryErrorHandler } from './registry-errors.ts';
import { token } from './token-handler.ts';
import { uploads } from './upload-handlers.ts';
import { UploadSessions } from './uploads.ts';
import type { OciRegistry, V2Call, V2Request } from './v2-call.ts';

interface V2Route {
  /** The tail after `/v2/`; named groups become `V2Call.params`. */
  pattern: RegExp;
  /** Only GET and HEAD: any other method finds no endpoint here (404). */
  readsOnly?: boolean;
  handler: (call: V2Call) => Promise<unknown>;
}

/**
 * The registry's route table: OCI Distribution 1.1 at `/v2/`, images addressed `HOST/{repoKey}/{image}`
 * (`{name}` = `{repoKey}/{image}`, many segments: the last `/manifests/`, `/blobs/`… decides). Tried in
 * order; the first match answers, and its handler refuses the methods it does not serve.
 */
const V2_ROUTES: readonly V2Route[] = [
  // GET HEAD /v2/ — the version check (401 with the token challenge until signed in)
  { pattern: /^$/, handler: ping },
  // GET HEAD /v2/token — `docker login`'s bearer token
  { pattern: /^token$/, readsOnly: true, handler: token },
  // GET HEAD /v2/_catalog
  { pattern: /^_catalog$/, readsOnly: true, handler: catalog },
  // GET HEAD PUT DELETE /v2/{name}/manifests/{reference}
  { pattern: /^(?<name>.+)\/manifests\/(?<reference>[^/]+)$/, handler: manifests },
  // POST GET PATCH PUT DELETE /v2/{name}/blobs/uploads/{uuid}
  { pattern: /^(?<name>.+)\/blobs\/uploads\/(?<uuid>[^/]*)$/, handler: uploads },
  // GET HEAD DELETE /v2/{name}/blobs/{digest}
  { pattern: /^(?<name>.+)\/blobs\/(?<digest>[^/]+)$/, handler: blobs },
  // GET HEAD /v2/{name}/tags/list
  { pattern: /^(?<name>.+)\/tags\/list$/, handler: tags },
  // GET HEAD /v2/{name}/referrers/{digest}
  { pattern: /^(?<name>.+)\/referrers\/(?<digest>[^/]+)$/, handler: referrers },
];

/** The route a `/v2/` tail names, with its parts, or null: no registry endpoint there. */
function routeOf(tail: string, method: string): { route: V2Route; params: Record<string, string> } | null {
  const read = method === 'GET' || method === 'HEAD';
  for (const route of V2_ROUTES) {
    const m = route.pattern.exec(tail);
    if (m && (read || !route.readsOnly)) return { route, params: { ...m.groups } };
  }
  return null;
}

/** The `{name}` a tail addresses, for a 401's token scope. */
const imageNameOf = (tail: string) => routeOf(tail, 'GET')?.params.name ?? null;

/**
 * OCI Distribution 1.1 at `/v2/`: pull, push (monolithic, chunked, cross-repository mount), tags,
 * referrers, delete, catalog, the token endpoint `docker login` uses (the handlers in `*-handlers.ts`,
 * one file per resource), garbage collection and upload expiry (`maintenance.ts`, through the core's
 * jobs). Every error is `{errors: [{code, message, detail}]}`.
 */
export async function registerOciRoutes(app: FastifyInstance, core: FormatCore): Promise<void> {
  const registry: OciRegistry = {
    core,
    uploads: new UploadSessions(
      path.join(core.tempDir, 'oci-uploads'),
      core.settings.ociUploadExpirySecs * 1000,
      core.now,
    ),
  };
  await registry.uploads.load();
  registerOciJobs(registry);

  async function dispatch(request: V2Request, reply: FastifyReply) {
    const tail = (request.params['*'] ?? '').replace(/^\/+/, '');
    const found = routeOf(tail, request.method);
    if (!found) throw new OciError(404, 'NAME_UNKNOWN', `No registry endpoint at /v2/${tail}`);
    return found.route.handler({ registry, request, reply, params: found.params });
  }

  await app.register(async (scope) => {
    // Bodies are blobs and manifests: left unread, streamed by the handlers.
    scope.removeAllContentTypeParsers();
    scope.addContentTypeParser('*', (_request, _payload, done) => done(null));
    // Slow clients and too many uploads from one address (PATCH, PUT, POST) are refused (issue 12 §15).
    scope.addHook('onRequest', core.uploadLimits);
    scope.setErrorHandler(registryErrorHandler(imageNameOf));
    scope.addHook('onRequest', async (_request, reply) => {
      reply.header('docker-distribution-api-version', 'registry/2.0');
    });
    const methods = ['GET', 'HEAD', 'PUT', 'POST', 'PATCH', 'DELETE'];
    const config = { access: 'public' as const };
    scope.route({ method: methods, url: '/v2', config, schema: { hide: true }, handler: dispatch });
    scope.route({ method: methods, url: '/v2/*', config, schema: { hide: true }, handler: dispatch });
    scope.post('/api/docker/gc', { config, schema: { hide: true } }, gcEndpoint(registry));
  });
}
