import type { FastifyPluginAsyncZod } from '@fastify/type-provider-zod';
import { z } from 'zod';
import { ForbiddenError, NotFoundError } from '../../../platform/errors.ts';
import { type AccessContext, requestMeta } from '../context.ts';
import { ldapSettingsOf } from './ldap.service.ts';
import { ldapConnectionTest } from './ldap.ts';
import { loadProvider } from './providers.service.ts';
import { consumeAssertion, samlLogoutUrl, samlMetadataDocument, startSamlLogin } from './saml.service.ts';
import { sendTestPage } from './sso.routes.ts';

const P = '/ui/api/v1/';
const tags = ['single sign-on'];
const keyParams = z.object({ key: z.string().min(1).max(64) });

/** Where a refused sign-in lands: the login page, which shows the message. */
export function loginErrorLocation(message: string): string {
  return `/ui/login?${new URLSearchParams({ ssoError: message })}`;
}

/**
 * SAML 2.0 service provider routes (issue 20): SP metadata, SP-initiated sign-in (redirect binding),
 * the assertion consumer service (POST binding), the single-logout landing, and the spec's
 * `GET /auth/saml/samlLogoutUrl` (spec 000 §7).
 */
export function samlRoutes(ctx: AccessContext): FastifyPluginAsyncZod {
  return async (app) => {
    const outbound = () => app.granary.outbound;
    // The IdP posts the answer as a form (SAML bindings §3.5): this plugin's routes only.
    app.addContentTypeParser(
      'application/x-www-form-urlencoded',
      { parseAs: 'string', bodyLimit: 1024 * 1024 },
      (_request, body, done) => done(null, Object.fromEntries(new URLSearchParams(String(body)))),
    );

    app.post(
      `${P}sso/:key/ldap/test`,
      {
        config: { access: 'admin' },
        schema: {
          tags,
          summary: 'LDAP: connect and bind as the search user with the stored settings',
          params: keyParams,
          response: { 200: z.object({ ok: z.boolean(), message: z.string() }) },
        },
      },
      async (request) => {
        const provider = await loadProvider(ctx.db, request.params.key);
        if (provider?.type !== 'ldap')
          throw new NotFoundError(`No LDAP provider named '${request.params.key}'`);
        return ldapConnectionTest(ldapSettingsOf(provider));
      },
    );

    app.get(
      `${P}sso/:key/saml/metadata`,
      { config: { access: 'public' }, schema: { tags, summary: 'SAML SP metadata', params: keyParams } },
      async (request, reply) => {
        const xml = await samlMetadataDocument(
          ctx,
          request.params.key,
          requestMeta(request, ctx.baseUrl).baseUrl,
        );
        return reply.type('application/samlmetadata+xml; charset=utf-8').send(xml);
      },
    );

    app.get(
      `${P}sso/:key/saml/login`,
      {
        config: { access: 'public' },
        schema: {
          tags,
          summary: 'Start a SAML sign-in (redirect to the identity provider)',
          params: keyParams,
          querystring: z.object({
            redirectTo: z.string().max(2000).optional(),
            test: z.enum(['true', 'false']).optional(),
          }),
        },
      },
      async (request, reply) => {
        const meta = requestMeta(request, ctx.baseUrl);
        const test = request.query.test === 'true';
        // A test sign-in shows an admin what the mapping makes of a user (nothing is created).
        if (test && !request.principal?.admin)
          throw new ForbiddenError('Only administrators test a provider');
        try {
          const url = await startSamlLogin(ctx, outbound(), meta, request.params.key, {
            redirectTo: request.query.redirectTo,
            mode: test ? 'test' : 'login',
          });
          return reply.redirect(url, 302);
        } catch (err) {
          if (test) throw err;
          return reply.redirect(loginErrorLocation(err instanceof Error ? err.message : String(err)), 303);
        }
      },
    );

    app.post(
      `${P}sso/:key/saml/acs`,
      {
        config: { access: 'public' },
        schema: {
          tags,
          summary: 'SAML assertion consumer service (HTTP-POST binding)',
          params: keyParams,
          body: z.object({
            SAMLResponse: z.string().max(1_000_000).optional(),
            RelayState: z.string().max(4000).optional(),
          }),
        },
      },
      async (request, reply) => {
        const meta = requestMeta(request, ctx.baseUrl);
        try {
          const outcome = await consumeAssertion(
            ctx,
            outbound(),
            request,
            reply,
            meta,
            request.params.key,
            request.body,
          );
          // A test sign-in shows the mapped user in the popup and posts it to the console (nothing created).
          if (outcome.kind === 'test') return sendTestPage(reply, outcome.result);
          if (outcome.kind === 'refused') return reply.redirect(loginErrorLocation(outcome.message), 303);
          return reply.redirect(outcome.redirectTo, 303);
        } catch (err) {
          // signInExternalUser refusals (unknown user, disabled…) carry a message for the user.
          if (err instanceof ForbiddenError) return reply.redirect(loginErrorLocation(err.message), 303);
          throw err;
        }
      },
    );

    // The IdP's LogoutResponse (or its own LogoutRequest) comes back here: the Granary session is already
    // closed by the console's logout, so the browser goes to the login page.
    app.get(
      `${P}sso/:key/saml/slo`,
      {
        config: { access: 'public' },
        schema: { tags, summary: 'SAML single logout landing', params: keyParams },
      },
      async (_request, reply) => reply.redirect('/ui/login', 303),
    );

    app.get(
      `${P}auth/saml/samlLogoutUrl`,
      {
        config: { access: 'public' },
        schema: {
          tags,
          summary: 'Where a SAML user goes on logout',
          response: { 200: z.object({ logoutUrl: z.string().nullable() }) },
        },
      },
      async (request) => ({
        logoutUrl: await samlLogoutUrl(ctx, outbound(), requestMeta(request, ctx.baseUrl)),
      }),
    );
  };
}
