import type { FastifyInstance, FastifyReply, FastifyRequest } from 'fastify';
import { toEnvelope } from '../../platform/http/error-handler.ts';
import { httpStatusOf } from '../../platform/http/error-status.ts';
import { infrastructureError } from '../../platform/http/infrastructure-errors.ts';
import type { FormatCore, RequestContext } from '../sdk/format.ts';
import { TerraformError, terraformErrorBody } from './errors.ts';
import { serveModuleDownload, serveModuleVersions } from './modules.ts';
import { isName, isPlatformPart, isSystem, isType, isVersion, splitRepoNamespace } from './names.ts';
import { serveProviderDownload, serveProviderVersions } from './providers.ts';

export type Service = 'modules' | 'providers';

/** Where the host-wide registry API is (Artifactory's `/artifactory/api/terraform/v1/…`, without the context). */
export const HOST_API = '/api/terraform/v1';

/**
 * One call of the registry API, `tail` being the path after `…/v1/{service}/` with a plain namespace:
 * module `versions` and `{version}/download`, provider `versions` and `{version}/download/{os}/{arch}`.
 */
export async function serveRegistryCall(
  reply: FastifyReply,
  ctx: RequestContext,
  service: Service,
  tail: string,
  method: string,
) {
  if (method !== 'GET' && method !== 'HEAD')
    throw new TerraformError(405, `The ${service} registry API answers GET only`);
  const parts = tail.split('/');
  const bad = (what: string) => new TerraformError(400, `Invalid ${what} in '${tail}'`);
  if (service === 'modules') {
    const [namespace = '', name = '', system = '', a, b] = parts;
    if (!isName(namespace) || !isName(name) || !isSystem(system)) throw bad('module address');
    const m = { namespace, name, system };
    if (parts.length === 4 && a === 'versions') return serveModuleVersions(reply, ctx, m);
    if (parts.length === 5 && b === 'download') {
      if (!isVersion(a!)) throw bad('version');
      return serveModuleDownload(reply, ctx, m, a!);
    }
  } else {
    const [namespace = '', type = '', a, b, os = '', arch = ''] = parts;
    if (!isName(namespace) || !isType(type)) throw bad('provider address');
    const p = { namespace, type };
    if (parts.length === 3 && a === 'versions') return serveProviderVersions(reply, ctx, p);
    if (parts.length === 6 && b === 'download') {
      if (!isVersion(a!)) throw bad('version');
      if (!isPlatformPart(os) || !isPlatformPart(arch)) throw bad('platform');
      return serveProviderDownload(reply, ctx, p, a!, os, arch);
    }
  }
  throw new TerraformError(404, `No ${service} registry endpoint at '${tail}'`);
}

/**
 * The host-wide Terraform endpoints, registered once: service discovery at the host's root
 * (`/.well-known/terraform.json`, where terraform looks for a registry host) and the registry API at
 * `/api/terraform/v1/{modules|providers}/{repoKey}__{namespace}/…`: a source address names the
 * repository in its namespace, as Artifactory's do (`HOST/{repoKey}__{namespace}/{name}/{provider}`),
 * so one host serves every Terraform repository. Errors answer `{"errors":[…]}`.
 */
export async function registerTerraformRoutes(app: FastifyInstance, core: FormatCore): Promise<void> {
  await app.register(async (scope) => {
    scope.setErrorHandler(async (thrown: unknown, request: FastifyRequest, reply: FastifyReply) => {
      const error = infrastructureError(thrown, request.id) ?? thrown;
      const { status, body } = toEnvelope(error, request);
      if (status >= 500) request.log.error({ err: thrown }, 'terraform registry request failed');
      if (status === 401) reply.header('www-authenticate', 'Bearer realm="Granary"');
      const headers = (error as { headers?: Record<string, string> }).headers;
      if (headers && httpStatusOf(error) !== undefined) reply.headers(headers);
      return reply
        .code(status)
        .type('application/json; charset=utf-8')
        .send(terraformErrorBody(body.errors[0]!.message));
    });
    const config = { access: 'public' as const };
    scope.get('/.well-known/terraform.json', { config, schema: { hide: true } }, async (_request, reply) =>
      reply
        .header('cache-control', 'max-age=300')
        .type('application/json')
        .send({ 'modules.v1': `${HOST_API}/modules/`, 'providers.v1': `${HOST_API}/providers/` }),
    );
    for (const service of ['modules', 'providers'] as const)
      scope.route({
        method: ['GET', 'HEAD'],
        url: `${HOST_API}/${service}/*`,
        config,
        schema: { hide: true },
        handler: async (request: FastifyRequest, reply) => {
          const tail = ((request.params as { '*'?: string })['*'] ?? '').replace(/^\/+/, '');
          const slash = tail.indexOf('/');
          const at = slash > 0 ? splitRepoNamespace(tail.slice(0, slash)) : null;
          if (!at)
            throw new TerraformError(
              404,
              `The namespace names no repository: use {repoKey}__{namespace} (HOST/{repoKey}__{namespace}/…)`,
            );
          const ctx = await core.requestContext(request, at.repoKey);
          if (ctx?.repository.packageType !== 'terraform')
            throw new TerraformError(404, `No Terraform repository '${at.repoKey}'`);
          return serveRegistryCall(
            reply,
            ctx,
            service,
            `${at.namespace}${tail.slice(slash)}`,
            request.method,
          );
        },
      });
  });
}
