import type { FastifyPluginAsyncZod } from '@fastify/type-provider-zod';
import {
  APPLICATIONS_API,
  applicationClientDataSchema,
  applicationCreatedSchema,
  applicationCreateSchema,
  applicationListSchema,
  applicationValidateSchema,
  authorizeAnswerSchema,
  authorizeRequestSchema,
  consentRequestSchema,
  OAUTH_PATHS,
  userIntegrationListSchema,
} from '@granary/contracts';
import type { FastifyReply } from 'fastify';
import { z } from 'zod';
import { requestMeta } from '../access/context.ts';
import {
  type ApplicationsContext,
  clientData,
  createApplication,
  deleteApplication,
  listApplications,
  listUserIntegrations,
  revokeUserIntegration,
  validateApplication,
} from './applications.service.ts';
import {
  approveAuthorization,
  authorizationServerMetadata,
  consentRequest,
  createOAuthServer,
  denyAuthorization,
  type OAuthAnswer,
  revokeOAuthToken,
  startAuthorization,
  tokenEndpoint,
} from './oauth-server.ts';

const tags = ['applications'];
const P = `/ui/api/v1/${APPLICATIONS_API}`;
const admin = { access: 'admin' as const };
const signedIn = { access: 'authenticated' as const };
const oauthClient = { access: 'public' as const, oauthClient: true };
const id = z.object({ id: z.string().max(64) });

function send(reply: FastifyReply, a: OAuthAnswer) {
  reply.code(a.status).headers(a.headers);
  return a.body === undefined ? reply.send() : reply.send(a.body);
}

/**
 * Application integrations (issue 18, spec 001 §7 "Application integrations"): the console's calls
 * under `/ui/api/v1/integrations/applications`, and the OAuth 2.0 endpoints for the applications.
 */
export function applicationRoutes(ctx: ApplicationsContext): FastifyPluginAsyncZod {
  return async (app) => {
    // Made (and its library loaded) on the first OAuth request, not at start (issue 24, idle memory).
    let oauthServer: ReturnType<typeof createOAuthServer> | undefined;
    const server = () => (oauthServer ??= createOAuthServer(ctx));
    const baseOf = (request: Parameters<typeof requestMeta>[0]) =>
      requestMeta(request, ctx.access.baseUrl).baseUrl;
    // RFC 6749 §3.2: token and revocation requests are form-encoded (this plugin's routes only).
    app.addContentTypeParser(
      'application/x-www-form-urlencoded',
      { parseAs: 'string', bodyLimit: 64 * 1024 },
      (_request, body, done) => done(null, Object.fromEntries(new URLSearchParams(String(body)))),
    );

    app.post(
      P,
      {
        config: admin,
        schema: {
          tags,
          summary:
            'Register an application: a client id and a secret answered once (409 "This name already exist")',
          body: applicationCreateSchema,
          response: { 201: applicationCreatedSchema },
        },
      },
      async (request, reply) =>
        reply.code(201).send(await createApplication(ctx, requestMeta(request), request.body)),
    );
    app.get(
      P,
      { config: admin, schema: { tags, summary: 'Applications', response: { 200: applicationListSchema } } },
      async () => listApplications(ctx),
    );
    app.delete(
      `${P}/:id`,
      { config: admin, schema: { tags, summary: 'Delete an application and revoke its tokens', params: id } },
      async (request, reply) => {
        await deleteApplication(ctx, requestMeta(request), request.params.id);
        return reply.code(204).send();
      },
    );
    app.get(
      `${P}/validate/:id`,
      {
        config: admin,
        schema: {
          tags,
          summary: 'Where the application sends its users',
          params: id,
          response: { 200: applicationValidateSchema },
        },
      },
      async (request) => validateApplication(ctx, baseOf(request), request.params.id),
    );
    app.get(
      `${P}/client-data/:id`,
      {
        config: admin,
        schema: {
          tags,
          summary: "The application's OAuth settings (no secret)",
          params: id,
          response: { 200: applicationClientDataSchema },
        },
      },
      async (request) => clientData(ctx, baseOf(request), request.params.id),
    );
    app.get(
      `${P}/consent/:requestId`,
      {
        config: signedIn,
        schema: {
          tags,
          summary: 'The pending authorization request the consent screen shows',
          params: z.object({ requestId: z.string().max(128) }),
          response: { 200: consentRequestSchema },
        },
      },
      async (request) => consentRequest(ctx, request.principal!, request.params.requestId),
    );
    app.post(
      `${P}/authorize/:clientId/:username`,
      {
        config: signedIn,
        schema: {
          tags,
          summary: 'Approve a pending authorization request; answers the URL to send the browser to',
          params: z.object({ clientId: z.string().max(128), username: z.string().max(256) }),
          body: authorizeRequestSchema,
          response: { 200: authorizeAnswerSchema },
        },
      },
      async (request) =>
        approveAuthorization(
          ctx,
          await server(),
          requestMeta(request),
          request.params.clientId,
          request.params.username,
          request.body.requestId,
        ),
    );
    app.post(
      `${P}/consent/:requestId/deny`,
      {
        config: signedIn,
        schema: {
          tags,
          summary: 'Deny a pending authorization request',
          params: z.object({ requestId: z.string().max(128) }),
          response: { 200: authorizeAnswerSchema },
        },
      },
      async (request) =>
        denyAuthorization(ctx, await server(), requestMeta(request), request.params.requestId),
    );
    app.get(
      `${P}/user-integrations/:username`,
      {
        config: signedIn,
        schema: {
          tags,
          summary: "A user's authorized applications (the user or an admin)",
          params: z.object({ username: z.string().max(256) }),
          response: { 200: userIntegrationListSchema },
        },
      },
      async (request) => listUserIntegrations(ctx, request.principal!, request.params.username),
    );
    app.delete(
      `${P}/user-integrations/:clientId/:username`,
      {
        config: signedIn,
        schema: {
          tags,
          summary: "Revoke a user's integration: the application's tokens stop working",
          params: z.object({ clientId: z.string().max(128), username: z.string().max(256) }),
        },
      },
      async (request, reply) => {
        await revokeUserIntegration(
          ctx,
          requestMeta(request),
          request.params.clientId,
          request.params.username,
        );
        return reply.code(204).send();
      },
    );

    // OAuth 2.0 (RFC 6749, 7636, 7009, 8414).
    app.get(
      OAUTH_PATHS.authorize,
      {
        config: { access: 'public' },
        schema: { tags, summary: 'OAuth 2.0 authorization endpoint (code + PKCE S256)' },
      },
      async (request, reply) =>
        send(reply, await startAuthorization(ctx, request.query as Record<string, unknown>)),
    );
    app.post(
      OAUTH_PATHS.token,
      {
        config: oauthClient,
        schema: { tags, summary: 'OAuth 2.0 token endpoint (authorization_code, refresh_token)' },
      },
      async (request, reply) =>
        send(
          reply,
          await tokenEndpoint(await server(), {
            headers: request.headers as Record<string, unknown>,
            body: request.body,
            query: request.query as Record<string, unknown>,
          }),
        ),
    );
    app.post(
      OAUTH_PATHS.revoke,
      { config: oauthClient, schema: { tags, summary: 'OAuth 2.0 token revocation (RFC 7009)' } },
      async (request, reply) =>
        send(
          reply,
          await revokeOAuthToken(ctx, {
            headers: request.headers as Record<string, unknown>,
            body: request.body,
          }),
        ),
    );
    app.get(
      OAUTH_PATHS.metadata,
      {
        config: { access: 'public' },
        schema: { tags, summary: 'OAuth 2.0 authorization server metadata (RFC 8414)' },
      },
      async (request) => authorizationServerMetadata(baseOf(request)),
    );
  };
}
