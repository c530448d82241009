import { randomBytes } from 'node:crypto';
import type { FastifyPluginAsyncZod } from '@fastify/type-provider-zod';
import {
  CLI_REGISTRATION_PAGE,
  CLI_SESSION_PATTERN,
  SSO_MESSAGES,
  SSO_PROVIDER_KEY_PATTERN,
  SSO_REALM_OF,
  SSO_TEST_MESSAGE_TYPE,
  type SsoTestResult,
  ssoLoginStateSchema,
  ssoProviderListSchema,
  ssoProviderSchema,
  ssoProviderWriteSchema,
  userDataSchema,
} from '@granary/contracts';
import type { FastifyReply, FastifyRequest } from 'fastify';
import { z } from 'zod';
import { InvalidError, NotFoundError, UnauthorizedError } from '../../../platform/errors.ts';
import type { OutboundClient } from '../../../platform/outbound/index.ts';
import { safeRedirect } from '../auth.routes.ts';
import { type AccessContext, type RequestMeta, requestMeta } from '../context.ts';
import { sha256 } from '../crypto.ts';
import { isTrustedProxyPeer } from './http-sso.ts';
import { providerNamed, SSO_PREFIX, ssoLoginState } from './login-links.ts';
import { beginFlow, SSO_STATE_TTL_MS, type SsoFlowMode, takeFlow } from './login-state.ts';
import {
  newOidcFlow,
  oauth2AuthorizationUrl,
  oauth2Callback,
  oidcAuthorizationUrl,
  oidcCallback,
  SsoFlowError,
} from './oidc.ts';
import {
  deleteProvider,
  enabledProviders,
  getProvider,
  listProviders,
  loadProvider,
  putProvider,
  type ResolvedProvider,
} from './providers.service.ts';
import { mapClaims, SsoSignInError, signInExternalUser, testResultOf } from './provision.ts';
import { markReplay } from './replay.ts';

const P = '/ui/api/v1/';
const tags = ['single sign-on'];
const keyParams = z.object({ key: z.string().regex(SSO_PROVIDER_KEY_PATTERN) });
const redirectQuery = z.object({ redirectTo: z.string().max(2000).optional() });

/** Where a refused sign-in lands: the login page, which shows the message. */
function loginError(message: string): string {
  return `/ui/login?${new URLSearchParams({ ssoError: message })}`;
}

const escapeHtml = (s: string) =>
  s.replace(/[&<>"']/g, (c) => ({ '&': '&amp;', '<': '&lt;', '>': '&gt;', '"': '&quot;', "'": '&#39;' })[c]!);

/**
 * The test sign-in's answer: a small page showing the mapped user that posts it to the console window
 * that opened it (same origin only). Its own CSP lets only its one inline script run.
 */
export function sendTestPage(reply: FastifyReply, result: SsoTestResult): FastifyReply {
  const nonce = randomBytes(16).toString('base64');
  const json = JSON.stringify(result).replace(/</g, '\\u003c');
  const rows = result.ok
    ? `<dl><dt>User name</dt><dd>${escapeHtml(result.username ?? '')}</dd><dt>Email</dt><dd>${escapeHtml(
        result.email ?? '—',
      )}</dd><dt>Groups</dt><dd>${escapeHtml(result.groups.join(', ') || '—')}</dd><dt>Administrator</dt><dd>${
        result.admin ? 'yes' : 'no'
      }</dd><dt>Realm</dt><dd>${result.realm}</dd></dl>`
    : `<p role="alert">${escapeHtml(result.error ?? SSO_MESSAGES.signInFailed)}</p>`;
  const html = `<!doctype html><html lang="en"><head><meta charset="utf-8"><title>Test sign-in</title>
<style>body{font-family:system-ui,sans-serif;margin:2rem}dt{font-weight:600}dd{margin:0 0 .5rem}</style></head>
<body><h1>Test sign-in: ${escapeHtml(result.provider)}</h1>${rows}<p>Nothing was created. You may close this window.</p>
<script type="application/json" id="granary-sso-test">${json}</script>
<script nonce="${nonce}">(function(){var r=JSON.parse(document.getElementById('granary-sso-test').textContent);
if(window.opener){window.opener.postMessage({type:${JSON.stringify(SSO_TEST_MESSAGE_TYPE)},result:r},window.location.origin);}})();</script>
</body></html>`;
  return reply
    .header(
      'content-security-policy',
      `default-src 'none'; script-src 'nonce-${nonce}'; style-src 'unsafe-inline'; frame-ancestors 'none'`,
    )
    .header('cache-control', 'no-store')
    .type('text/html; charset=utf-8')
    .send(html);
}

/**
 * OpenID Connect and OAuth 2.0 sign-in, provider administration, the login state's SSO links, HTTP
 * SSO and the spec's SSO call shapes (issue 20; spec 000 §2, §3, §4, §7).
 */
export function ssoRoutes(ctx: AccessContext): FastifyPluginAsyncZod {
  return async (app) => {
    const outbound = (): OutboundClient => app.granary.outbound;

    // ---------------------------------------------------------------- administration (admins only)
    app.get(
      `${P}sso/providers`,
      { config: { access: 'admin' }, schema: { tags, response: { 200: ssoProviderListSchema } } },
      async () => ({ providers: await listProviders(ctx) }),
    );
    app.get(
      `${P}sso/providers/:key`,
      {
        config: { access: 'admin' },
        schema: { tags, params: keyParams, response: { 200: ssoProviderSchema } },
      },
      async (request) => getProvider(ctx, request.params.key),
    );
    app.put(
      `${P}sso/providers/:key`,
      {
        config: { access: 'admin' },
        schema: {
          tags,
          params: keyParams,
          body: ssoProviderWriteSchema,
          response: { 200: ssoProviderSchema, 201: ssoProviderSchema },
        },
      },
      async (request, reply) => {
        const result = await putProvider(
          ctx,
          requestMeta(request, ctx.baseUrl),
          request.params.key,
          request.body,
        );
        return reply.code(result.created ? 201 : 200).send(result.provider);
      },
    );
    app.delete(
      `${P}sso/providers/:key`,
      { config: { access: 'admin' }, schema: { tags, params: keyParams } },
      async (request, reply) => {
        await deleteProvider(ctx, requestMeta(request, ctx.baseUrl), request.params.key);
        return reply.code(204).send();
      },
    );

    // ---------------------------------------------------------------- login page state (public)
    app.get(
      `${P}sso/loginState`,
      { config: { access: 'public' }, schema: { tags, response: { 200: ssoLoginStateSchema } } },
      async () => ssoLoginState(ctx.db, app),
    );

    // ---------------------------------------------------------------- starting a sign-in
    async function start(
      request: FastifyRequest,
      reply: FastifyReply,
      named: ResolvedProvider | undefined,
      mode: SsoFlowMode,
      redirectTo: string | undefined,
    ) {
      // With its secrets (a provider found by type or brand was read without them).
      const provider = named && (await loadProvider(ctx.db, named.key));
      const fail = (message: string) =>
        mode === 'test'
          ? sendTestPage(reply, {
              ok: false,
              provider: provider?.key ?? '',
              realm: provider ? SSO_REALM_OF[provider.type] : 'oauth',
              username: null,
              email: null,
              groups: [],
              admin: false,
              error: message,
            })
          : reply.redirect(loginError(message), 303);
      if (!provider) return fail(SSO_MESSAGES.unknownProvider);
      // A test runs whether or not the provider is enabled yet: that is what it is for.
      if (!provider.enabled && mode === 'login') return fail(SSO_MESSAGES.providerDisabled);
      const landing = safeRedirect(redirectTo);
      if (provider.type === 'saml')
        return reply.redirect(
          `${SSO_PREFIX}/${provider.key}/saml/login?${new URLSearchParams({
            redirectTo: landing,
            ...(mode === 'test' ? { test: 'true' } : {}),
          })}`,
          302,
        );
      if (provider.type === 'http')
        return reply.redirect(`/ui/api/v1/ui/httpsso?${new URLSearchParams({ redirectTo: landing })}`, 302);
      if (provider.type === 'ldap') return fail('An LDAP provider signs in with the login form');
      const meta = requestMeta(request, ctx.baseUrl);
      const redirectUri = `${meta.baseUrl.replace(/\/+$/, '')}${SSO_PREFIX}/${provider.key}/callback`;
      try {
        if (provider.type === 'oidc') {
          const flow = { ...newOidcFlow(provider.usePkce), redirectTo: landing, redirectUri };
          const state = await beginFlow(ctx.db, request, reply, provider.key, mode, flow);
          const url = await oidcAuthorizationUrl(outbound(), provider, redirectUri, state, flow);
          return reply.redirect(url.href, 302);
        }
        const flow = { ...newOidcFlow(true), redirectTo: landing, redirectUri };
        const state = await beginFlow(ctx.db, request, reply, provider.key, mode, flow);
        const url = await oauth2AuthorizationUrl(provider, redirectUri, state, flow);
        return reply.redirect(url.href, 302);
      } catch (err) {
        const reason = err instanceof SsoFlowError ? err.reason : (err as Error).message;
        await recordFailure(meta, provider, reason);
        return fail(err instanceof SsoFlowError ? err.message : SSO_MESSAGES.signInFailed);
      }
    }

    async function recordFailure(meta: RequestMeta, provider: ResolvedProvider, reason: string) {
      await ctx.audit.record({
        action: 'login.failure',
        result: 'failure',
        actor: null,
        ip: meta.ip,
        requestId: meta.requestId,
        details: { channel: 'sso', realm: SSO_REALM_OF[provider.type], provider: provider.key, reason },
      });
    }

    app.get(
      `${P}sso/:key/login`,
      { config: { access: 'public' }, schema: { tags, params: keyParams, querystring: redirectQuery } },
      async (request, reply) =>
        start(
          request,
          reply,
          await loadProvider(ctx.db, request.params.key),
          'login',
          request.query.redirectTo,
        ),
    );
    // A test sign-in: the flow runs in a popup and shows the mapped user; nothing is created.
    app.get(
      `${P}sso/:key/test`,
      { config: { access: 'admin' }, schema: { tags, params: keyParams } },
      async (request, reply) =>
        start(request, reply, await loadProvider(ctx.db, request.params.key), 'test', undefined),
    );
    // spec 000 §2: `sso/{ssoLoginType}` and `/auth-provider/{type}` name a provider by type, brand or key.
    for (const url of [`${P}sso/login/:type`, `${P}auth-provider/:type`])
      app.get(
        url,
        {
          config: { access: 'public' },
          schema: { tags, params: z.object({ type: z.string().min(1).max(64) }), querystring: redirectQuery },
        },
        async (request, reply) =>
          start(
            request,
            reply,
            await providerNamed(ctx.db, request.params.type),
            'login',
            request.query.redirectTo,
          ),
      );
    // spec 000 §7: `GET /ui/oauth2/loginRequestPlatform` with params, optional registrationToken (a CLI
    // registration session: after signing in the user confirms it on the CLI registration page).
    app.get(
      `${P}ui/oauth2/loginRequestPlatform`,
      {
        config: { access: 'public' },
        schema: {
          tags,
          querystring: z.object({
            provider: z.string().max(64).optional(),
            redirectTo: z.string().max(2000).optional(),
            registrationToken: z.string().max(200).optional(),
          }),
        },
      },
      async (request, reply) => {
        const { provider: name, registrationToken } = request.query;
        let redirectTo = request.query.redirectTo;
        if (registrationToken !== undefined) {
          if (!CLI_SESSION_PATTERN.test(registrationToken))
            throw new InvalidError('Not a CLI registration token');
          redirectTo = `${CLI_REGISTRATION_PAGE}?${new URLSearchParams({ session: registrationToken })}`;
        }
        const provider = name
          ? await providerNamed(ctx.db, name)
          : ((await enabledProviders(ctx.db)).find(
              (p) => p.isDefault && (p.type === 'oidc' || p.type === 'oauth2'),
            ) ?? (await providerNamed(ctx.db, 'oauth')));
        return start(request, reply, provider, 'login', redirectTo);
      },
    );

    // ---------------------------------------------------------------- the identity provider's answer
    app.get(
      `${P}sso/:key/callback`,
      {
        config: { access: 'public' },
        schema: {
          tags,
          params: keyParams,
          querystring: z.object({
            code: z.string().max(4096).optional(),
            state: z.string().max(512).optional(),
            error: z.string().max(512).optional(),
            error_description: z.string().max(2000).optional(),
            iss: z.string().max(2000).optional(),
          }),
        },
      },
      async (request, reply) => {
        const meta = requestMeta(request, ctx.baseUrl);
        const provider = await loadProvider(ctx.db, request.params.key);
        if (!provider || (provider.type !== 'oidc' && provider.type !== 'oauth2'))
          return reply.redirect(loginError(SSO_MESSAGES.unknownProvider), 303);
        const flow = await takeFlow(ctx.db, request, reply, provider.key, request.query.state);
        const mode = flow?.mode ?? 'login';
        const refuse = async (reason: string, message: string) => {
          await recordFailure(meta, provider, reason);
          if (mode === 'test')
            return sendTestPage(reply, {
              ok: false,
              provider: provider.key,
              realm: 'oauth',
              username: null,
              email: null,
              groups: [],
              admin: false,
              error: message,
            });
          return reply.redirect(loginError(message), 303);
        };
        if (!flow) return refuse('unknown or expired state', SSO_MESSAGES.expiredState);
        if (mode === 'test' && !request.principal?.admin)
          return refuse(
            'test sign-in without an administrator session',
            'Only administrators test a provider',
          );
        if (!provider.enabled && mode === 'login')
          return refuse('provider disabled', SSO_MESSAGES.providerDisabled);
        const { code, error } = request.query;
        if (error)
          return refuse(`identity provider answered ${error}`, request.query.error_description ?? error);
        if (!code) return refuse('no code', SSO_MESSAGES.signInFailed);
        // A code works once, on whichever node it reaches.
        if (
          !(await markReplay(
            ctx.db,
            provider.key,
            `code:${sha256(code)}`,
            new Date(Date.now() + SSO_STATE_TTL_MS),
          ))
        )
          return refuse('authorization code replayed', SSO_MESSAGES.signInFailed);
        let claims: Record<string, unknown>;
        try {
          if (provider.type === 'oidc') {
            const current = new URL(
              flow.data.redirectUri ?? `${meta.baseUrl}${SSO_PREFIX}/${provider.key}/callback`,
            );
            for (const [k, v] of Object.entries(request.query))
              if (v !== undefined) current.searchParams.set(k, v);
            claims = await oidcCallback(outbound(), provider, current, request.query.state!, flow.data);
          } else claims = await oauth2Callback(outbound(), provider, code, flow.data.redirectUri!, flow.data);
        } catch (err) {
          if (err instanceof SsoFlowError) return refuse(err.reason, err.message);
          throw err;
        }
        const mapped = mapClaims(provider.mapping, claims, {
          usernameClaims:
            provider.type === 'oauth2' ? ['login', 'username', 'preferred_username'] : ['preferred_username'],
        });
        if (mode === 'test') return sendTestPage(reply, testResultOf(provider, 'oauth', mapped, claims));
        try {
          await signInExternalUser(
            ctx,
            {
              realm: 'oauth',
              providerKey: provider.key,
              username: mapped.username ?? '',
              email: mapped.email,
              groups: mapped.groups,
            },
            request,
            reply,
          );
        } catch (err) {
          // Refusals (unknown or disabled user…) are in the audit already; the message is for the user.
          if (err instanceof SsoSignInError) return reply.redirect(loginError(err.message), 303);
          throw err;
        }
        return reply.redirect(safeRedirect(flow.data.redirectTo), 302);
      },
    );

    // ---------------------------------------------------------------- HTTP SSO and Crowd (spec 000 §7)
    for (const url of [`${P}ui/httpsso`, `${P}access/api/ui/httpsso`])
      app.get(
        url,
        {
          config: { access: 'public' },
          schema: { tags, querystring: redirectQuery, response: { 200: userDataSchema } },
        },
        async (request, reply) => {
          const providers = (await enabledProviders(ctx.db)).filter((p) => p.type === 'http');
          if (providers.length === 0) throw new NotFoundError(SSO_MESSAGES.httpSsoOff);
          const meta = requestMeta(request, ctx.baseUrl);
          const trust = app.granary.config.trustProxy;
          const trusted = isTrustedProxyPeer(trust, request.socket.remoteAddress);
          for (const provider of providers) {
            if (provider.type !== 'http') continue;
            const raw = request.headers[provider.header.toLowerCase()];
            const name = typeof raw === 'string' ? raw.trim() : undefined;
            if (!name) continue;
            if (!trusted) {
              // Anyone can send the header: only a trusted reverse proxy's is believed.
              await recordFailure(
                meta,
                provider,
                `HTTP SSO header from an untrusted address ${request.socket.remoteAddress}`,
              );
              throw new UnauthorizedError('Not signed in by the trusted reverse proxy');
            }
            const header = (h: string | undefined) => {
              const v = h ? request.headers[h.toLowerCase()] : undefined;
              return typeof v === 'string' ? v : undefined;
            };
            const grant = await signInExternalUser(
              ctx,
              {
                realm: 'http',
                providerKey: provider.key,
                username: name,
                email: header(provider.emailHeader) ?? null,
                groups: (header(provider.groupsHeader) ?? '').split(',').filter((g) => g.trim()),
              },
              request,
              reply,
            );
            if (request.query.redirectTo) return reply.redirect(safeRedirect(request.query.redirectTo), 302);
            return grant.userData;
          }
          throw new UnauthorizedError('Not signed in by the trusted reverse proxy');
        },
      );
    for (const url of [`${P}ui/crowd/login`, `${P}access/api/ui/crowd/login`])
      app.get(url, { config: { access: 'public' }, schema: { tags } }, async (_request, reply) =>
        reply
          .code(501)
          .send({ errors: [{ status: 501, code: 'NOT_SUPPORTED', message: SSO_MESSAGES.crowdUnsupported }] }),
      );
  };
}
