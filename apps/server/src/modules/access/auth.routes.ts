import type { FastifyPluginAsyncZod } from '@fastify/type-provider-zod';
import {
  AccessErrorCode,
  accessLoginRequestSchema,
  accessModeSchema,
  autoRedirectStateSchema,
  identityTokenRequestSchema,
  identityTokenResponseSchema,
  loginRedirectSchema,
  loginRelatedDataSchema,
  mfaEnrollResponseSchema,
  mfaVerifyRequestSchema,
  REMEMBER_ME_QUERY,
  SESSION_COOKIE,
  uiLoginRequestSchema,
  userDataSchema,
} from '@granary/contracts';
import type { FastifyReply, FastifyRequest } from 'fastify';
import { z } from 'zod';
import { readOtp } from './authentication.ts';
import { type AccessContext, requestMeta } from './context.ts';
import { clearSessionCookie, readCookie, setSessionCookie } from './cookies.ts';
import {
  anonymousUserData,
  consoleLogin,
  enrollMfa,
  logout,
  type SessionGrant,
  userDataOf,
  verifyMfa,
} from './login.service.ts';
import { ssoLoginState } from './sso/login-links.ts';
import { createIdentityToken } from './tokens.service.ts';
import { requireUser } from './users.service.ts';

const P = '/ui/api/v1/';
const tags = ['console auth'];
const rememberMeQuery = z.object({
  [REMEMBER_ME_QUERY]: z.enum(['true', 'false']).optional(),
});

/** A login `redirectTo` is honoured only when it is a path on this server (no scheme, no host). */
export function safeRedirect(value: string | undefined): string {
  if (!value) return '/ui/';
  if (
    !value.startsWith('/') ||
    value.startsWith('//') ||
    value.startsWith('/\\') ||
    [...value].some((c) => c === '\\' || c.charCodeAt(0) < 0x20)
  )
    return '/ui/';
  try {
    const url = new URL(value, 'http://granary.invalid');
    if (url.origin !== 'http://granary.invalid') return '/ui/';
    return `${url.pathname}${url.search}${url.hash}`;
  } catch {
    return '/ui/';
  }
}

function grant(reply: FastifyReply, request: FastifyRequest, result: SessionGrant) {
  setSessionCookie(reply, request, result.token, result.maxAgeSeconds);
  return result.userData;
}

/** The console's own sign-in calls (spec 000 §7), mounted under /ui/api/v1/ with the spec's paths. */
export function consoleAuthRoutes(ctx: AccessContext): FastifyPluginAsyncZod {
  return async (app) => {
    app.post(
      `${P}ui/auth/login`,
      {
        config: { access: 'public' },
        schema: {
          tags,
          querystring: rememberMeQuery,
          body: uiLoginRequestSchema,
          response: { 200: userDataSchema },
        },
      },
      async (request, reply) => {
        const remember = request.query[REMEMBER_ME_QUERY] === 'true';
        const result = await consoleLogin(
          ctx,
          requestMeta(request, ctx.baseUrl),
          request.body.user,
          request.body.password,
          remember,
          AccessErrorCode.CredentialsExpired,
        );
        return grant(reply, request, result);
      },
    );
    app.post(
      `${P}access/auth/login`,
      {
        config: { access: 'public' },
        schema: {
          tags,
          querystring: rememberMeQuery,
          body: accessLoginRequestSchema,
          response: { 200: userDataSchema },
        },
      },
      async (request, reply) => {
        const remember = request.body.rememberMe ?? request.query[REMEMBER_ME_QUERY] === 'true';
        const result = await consoleLogin(
          ctx,
          requestMeta(request, ctx.baseUrl),
          request.body.username,
          request.body.password,
          remember,
          AccessErrorCode.PasswordExpired,
        );
        return grant(reply, request, result);
      },
    );
    app.post(
      `${P}ui/auth/logout`,
      { config: { access: 'public' }, schema: { tags } },
      async (request, reply) => {
        await logout(ctx, requestMeta(request, ctx.baseUrl), readCookie(request, SESSION_COOKIE));
        clearSessionCookie(reply, request);
        return reply.code(204).send();
      },
    );
    app.get(
      `${P}ui/auth/current`,
      { config: { access: 'public' }, schema: { tags, response: { 200: userDataSchema } } },
      async (request) => {
        if (!request.principal) return anonymousUserData(ctx);
        return userDataOf(ctx, await requireUser(ctx.db, request.principal.name), 'NONE');
      },
    );
    const loginRelatedData = async () => {
      const settings = await ctx.settings.get();
      return {
        forgotPassword: true,
        canRememberMe: true,
        ssoProviderLink: (await ssoLoginState(ctx.db, app)).ssoProviderLink,
        canRegister: settings.selfRegistration,
        accountPortalUrl: settings.accountPortalUrl || null,
      };
    };
    for (const [method, url] of [
      ['GET', `${P}access/api/ui/security/loginRelatedData`],
      ['POST', `${P}loginRelatedData`],
      ['GET', `${P}loginRelatedData`],
    ] as const)
      app.route({
        method,
        url,
        config: { access: 'public' },
        schema: { tags, response: { 200: loginRelatedDataSchema } },
        handler: loginRelatedData,
      });
    app.get(
      `${P}ui/auth/redirect`,
      {
        config: { access: 'public' },
        schema: {
          tags,
          querystring: z.object({ redirectTo: z.string().optional() }),
          response: { 200: loginRedirectSchema },
        },
      },
      async (request) => ({ url: safeRedirect(request.query.redirectTo) }),
    );
    app.get(
      `${P}autoRedirectState`,
      { config: { access: 'public' }, schema: { tags, response: { 200: autoRedirectStateSchema } } },
      async () => ({ isAutoRedirectLogin: (await ssoLoginState(ctx.db, app)).isAutoRedirectLogin }),
    );
    app.get(
      `${P}access/mode`,
      { config: { access: 'public' }, schema: { tags, response: { 200: accessModeSchema } } },
      async () => ({ mode: 'internal' as const }),
    );

    // MFA: reachable with a pending-MFA session (the service checks it) or signed in.
    for (const prefix of [`${P}auth/mfa`, `${P}access/auth/mfa`]) {
      app.get(
        `${prefix}/enroll/:authenticator`,
        {
          config: { access: 'public' },
          schema: {
            tags,
            params: z.object({ authenticator: z.string() }),
            response: { 200: mfaEnrollResponseSchema },
          },
        },
        async (request) => enrollMfa(ctx, request.principal, readCookie(request, SESSION_COOKIE)),
      );
      app.post(
        `${prefix}/verify/:authenticator`,
        {
          config: { access: 'public' },
          schema: {
            tags,
            params: z.object({ authenticator: z.string() }),
            body: mfaVerifyRequestSchema,
            response: { 200: userDataSchema },
          },
        },
        async (request, reply) => {
          const result = await verifyMfa(
            ctx,
            requestMeta(request, ctx.baseUrl),
            readCookie(request, SESSION_COOKIE),
            request.body.otp,
          );
          if (result.token) setSessionCookie(reply, request, result.token, result.maxAgeSeconds ?? null);
          return result.userData;
        },
      );
    }

    app.post(
      `${P}ui/userIdentifyToken/:name`,
      {
        config: { access: 'authenticated' },
        schema: {
          tags,
          params: z.object({ name: z.string() }),
          body: identityTokenRequestSchema.optional(),
          response: { 200: identityTokenResponseSchema },
        },
      },
      async (request) =>
        createIdentityToken(ctx, requestMeta(request, ctx.baseUrl), request.params.name, request.body ?? {}, {
          otp: readOtp(request),
        }),
    );
  };
}
