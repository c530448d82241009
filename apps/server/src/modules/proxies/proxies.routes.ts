import type { FastifyPluginAsyncZod } from '@fastify/type-provider-zod';
import { proxySchema, reverseProxyAnswerSchema } from '@granary/contracts';
import type { FastifyRequest } from 'fastify';
import { z } from 'zod';
import {
  type Caller,
  createProxy,
  deleteProxy,
  getProxy,
  listProxies,
  type ProxiesContext,
  putProxy,
  updateProxy,
} from './proxies.service.ts';
import {
  getReverseProxy,
  nginxSnippet,
  type ReverseProxyContext,
  saveReverseProxy,
} from './reverse-proxy.service.ts';

const tags = ['proxies'];
const UI = '/ui/api/v1/ui/';
const admin = { access: 'admin' as const };

const callerOf = (request: FastifyRequest): Caller => ({
  name: request.principal?.name ?? null,
  ip: request.ip,
  requestId: request.id,
});

const keyParams = z.object({ key: z.string().min(1).max(256) });
const deleted = z.object({
  key: z.string(),
  cleared: z.array(z.object({ kind: z.string(), name: z.string() })),
});
const reverseProxyAnswer = reverseProxyAnswerSchema;
// Bodies are checked by the services (the contracts' rules and messages); the schema only says "an object".
const anyBody = z.record(z.string(), z.unknown());

/**
 * Outbound proxies and the reverse proxy settings (issue 15), administrators only. The console's
 * calls under `/ui/api/v1/ui/`; public twins at `/api/proxies` and Artifactory's
 * `/api/system/configuration/webServer` and `/api/system/configuration/reverseProxy/nginx`.
 */
export function proxiesRoutes(ctx: ProxiesContext, rp: ReverseProxyContext): FastifyPluginAsyncZod {
  return async (app) => {
    for (const base of [`${UI}proxies`, '/api/proxies']) {
      const hide = base === `${UI}proxies`;
      app.get(
        base,
        {
          config: admin,
          schema: { tags, hide, summary: 'Configured proxies', response: { 200: z.array(proxySchema) } },
        },
        async () => listProxies(ctx),
      );
      app.get(
        `${base}/:key`,
        {
          config: admin,
          schema: { tags, hide, summary: 'One proxy', params: keyParams, response: { 200: proxySchema } },
        },
        async (request) => getProxy(ctx, request.params.key),
      );
      app.delete(
        `${base}/:key`,
        {
          config: admin,
          schema: {
            tags,
            hide,
            summary: 'Deletes a proxy and clears it from remote repositories and webhooks',
            params: keyParams,
            response: { 200: deleted },
          },
        },
        async (request) => deleteProxy(ctx, request.params.key, callerOf(request)),
      );
    }
    app.post(
      `${UI}proxies`,
      {
        config: admin,
        schema: { tags, hide: true, body: anyBody, response: { 201: proxySchema } },
      },
      async (request, reply) => reply.code(201).send(await createProxy(ctx, request.body, callerOf(request))),
    );
    app.put(
      `${UI}proxies/:key`,
      {
        config: admin,
        schema: { tags, hide: true, params: keyParams, body: anyBody, response: { 200: proxySchema } },
      },
      async (request) => updateProxy(ctx, request.params.key, request.body, callerOf(request)),
    );
    app.put(
      '/api/proxies/:key',
      {
        config: admin,
        schema: {
          tags,
          summary:
            'Creates (201) or replaces (200) a proxy; the password is write-only ("" or absent keeps it, null removes it)',
          params: keyParams,
          body: anyBody,
          response: { 200: proxySchema, 201: proxySchema },
        },
      },
      async (request, reply) => {
        const { proxy, created } = await putProxy(ctx, request.params.key, request.body, callerOf(request));
        return reply.code(created ? 201 : 200).send(proxy);
      },
    );

    // Reverse proxy (web server) settings, spec 001 §3 "Other".
    for (const path of [`${UI}reverseProxies`, '/api/system/configuration/webServer']) {
      const hide = path.startsWith(UI);
      app.get(
        path,
        {
          config: admin,
          schema: { tags, hide, summary: 'Reverse proxy settings', response: { 200: reverseProxyAnswer } },
        },
        async () => getReverseProxy(rp),
      );
    }
    app.put(
      `${UI}reverseProxies`,
      { config: admin, schema: { tags, hide: true, body: anyBody, response: { 200: reverseProxyAnswer } } },
      async (request) => saveReverseProxy(rp, request.body),
    );
    app.post(
      '/api/system/configuration/webServer',
      {
        config: admin,
        schema: {
          tags,
          summary: 'Saves the reverse proxy settings',
          body: anyBody,
          response: { 200: reverseProxyAnswer },
        },
      },
      async (request) => saveReverseProxy(rp, request.body),
    );
    app.get(
      `${UI}reverseProxies/snippet`,
      {
        config: admin,
        schema: {
          tags,
          hide: true,
          response: { 200: z.object({ webServerType: z.literal('nginx'), snippet: z.string() }) },
        },
      },
      async () => ({
        webServerType: 'nginx' as const,
        snippet: await nginxSnippet(rp, await getReverseProxy(rp)),
      }),
    );
    app.get(
      '/api/system/configuration/reverseProxy/nginx',
      { config: admin, schema: { tags, summary: 'The nginx configuration for the saved settings (text)' } },
      async (_request, reply) =>
        reply.type('text/plain; charset=utf-8').send(await nginxSnippet(rp, await getReverseProxy(rp))),
    );
  };
}
