import type { FastifyPluginAsyncZod } from '@fastify/type-provider-zod';
import {
  apiKeyResponseSchema,
  cliSessionCreatedSchema,
  cliSessionCreateSchema,
  cliSessionInfoSchema,
  cliSessionPollSchema,
  invitationCreatedSchema,
  invitationCreateSchema,
  invitationVerifyRequestSchema,
  invitationVerifyResponseSchema,
  invitedSetPasswordSchema,
  mfaSelfResetSchema,
  REAUTHENTICATION_HEADER,
  userApiKeyInfoSchema,
  userDataSchema,
  userProfileUpdateSchema,
} from '@granary/contracts';
import { z } from 'zod';
import { readOtp } from './authentication.ts';
import {
  cancelCliSession,
  confirmCliSession,
  describeCliSession,
  openCliSession,
  pollCliSession,
} from './cli-registrations.service.ts';
import { type AccessContext, requestMeta } from './context.ts';
import { setSessionCookie } from './cookies.ts';
import { acceptInvitation, inviteUser, verifyInvitation } from './invitations.service.ts';
import { apiKeyInfo, issueApiKey, resetOwnMfa, revokeApiKey, updateOwnProfile } from './profile.service.ts';

const P = '/ui/api/v1/';
const session = z.object({ session: z.string().max(256) });

/**
 * Accounts: invitations (REST `POST /api/security/invitations`; console `access/token/verify` and
 * `access/entities/users/invited/setPassword`, spec 000 §7), CLI registration (REST
 * `/api/security/cli-registrations` for the CLI; console `access/cli-registration/{session}` for the
 * confirming user), and the self-service profile: `ui/userProfile`, `auth/mfa/reset`, `ui/userApiKey`,
 * `apiKey/{username}` (spec 000 §7, spec 001 §7).
 */
export function accountRoutes(ctx: AccessContext): FastifyPluginAsyncZod {
  return async (app) => {
    const meta = (request: Parameters<typeof requestMeta>[0]) => requestMeta(request, ctx.baseUrl);

    // ---- invitations
    app.post(
      '/api/security/invitations',
      {
        config: { access: 'admin' },
        schema: {
          tags: ['security'],
          summary: 'Invite a user by email (mails a single-use link to /ui/login/invitation)',
          body: invitationCreateSchema,
          response: { 201: invitationCreatedSchema },
        },
      },
      async (request, reply) => reply.code(201).send(await inviteUser(ctx, meta(request), request.body)),
    );
    app.post(
      `${P}access/token/verify`,
      {
        config: { access: 'public' },
        schema: {
          tags: ['console auth'],
          body: invitationVerifyRequestSchema,
          response: { 200: invitationVerifyResponseSchema },
        },
      },
      async (request) => verifyInvitation(ctx, meta(request), request.body.token),
    );
    app.post(
      `${P}access/entities/users/invited/setPassword`,
      {
        config: { access: 'public' },
        schema: {
          tags: ['console auth'],
          body: invitedSetPasswordSchema,
          response: { 201: userDataSchema },
        },
      },
      async (request, reply) => {
        const grant = await acceptInvitation(ctx, meta(request), request.body);
        setSessionCookie(reply, request, grant.token, grant.maxAgeSeconds);
        return reply.code(201).send(grant.userData);
      },
    );

    // ---- CLI registration
    app.post(
      '/api/security/cli-registrations',
      {
        config: { access: 'public' },
        schema: {
          tags: ['security'],
          summary: 'Open a CLI sign-in session (5 minutes); open the returned url in a browser',
          body: cliSessionCreateSchema.nullish(),
          response: { 201: cliSessionCreatedSchema },
        },
      },
      async (request, reply) =>
        reply.code(201).send(await openCliSession(ctx, meta(request), request.body?.client)),
    );
    app.get(
      '/api/security/cli-registrations/:session',
      {
        config: { access: 'public' },
        schema: {
          tags: ['security'],
          summary: 'Poll a CLI sign-in session: 202 pending, 200 once with the access token, then 404',
          params: session,
          response: { 200: cliSessionPollSchema, 202: cliSessionPollSchema },
        },
      },
      async (request, reply) => {
        const answer = await pollCliSession(ctx, meta(request), request.params.session);
        reply.header('cache-control', 'no-store');
        return reply.code(answer.status === 'pending' ? 202 : 200).send(answer);
      },
    );
    app.get(
      `${P}access/cli-registration/:session`,
      {
        config: { access: 'authenticated' },
        schema: { tags: ['console auth'], params: session, response: { 200: cliSessionInfoSchema } },
      },
      async (request) => describeCliSession(ctx, request.params.session),
    );
    app.post(
      `${P}access/cli-registration/:session/confirm`,
      { config: { access: 'authenticated' }, schema: { tags: ['console auth'], params: session } },
      async (request, reply) => {
        await confirmCliSession(ctx, meta(request), request.params.session, readOtp(request));
        return reply.code(204).send();
      },
    );
    app.delete(
      `${P}access/cli-registration/:session`,
      { config: { access: 'authenticated' }, schema: { tags: ['console auth'], params: session } },
      async (request, reply) => {
        await cancelCliSession(ctx, meta(request), request.params.session);
        return reply.code(204).send();
      },
    );

    // ---- self-service profile
    app.post(
      `${P}ui/userProfile`,
      {
        config: { access: 'authenticated' },
        schema: { tags: ['profile'], body: userProfileUpdateSchema, response: { 200: userDataSchema } },
      },
      async (request) => updateOwnProfile(ctx, meta(request), request.body),
    );
    app.post(
      `${P}auth/mfa/reset`,
      {
        config: { access: 'authenticated' },
        schema: { tags: ['profile'], body: mfaSelfResetSchema },
      },
      async (request, reply) => {
        await resetOwnMfa(ctx, meta(request), request.body.password, request.body.otp);
        return reply.code(204).send();
      },
    );
    app.get(
      `${P}ui/userApiKey`,
      {
        config: { access: 'authenticated' },
        schema: { tags: ['profile'], response: { 200: userApiKeyInfoSchema } },
      },
      async (request) => apiKeyInfo(ctx, meta(request)),
    );
    app.delete(
      `${P}ui/userApiKey`,
      { config: { access: 'authenticated' }, schema: { tags: ['profile'] } },
      async (request, reply) => {
        await revokeApiKey(ctx, meta(request));
        return reply.code(204).send();
      },
    );
    app.get(
      `${P}apiKey/:username`,
      {
        config: { access: 'authenticated' },
        schema: {
          tags: ['profile'],
          params: z.object({ username: z.string().min(1).max(64) }),
          response: { 200: apiKeyResponseSchema },
        },
      },
      async (request, reply) => {
        reply.header('cache-control', 'no-store');
        const header = request.headers[REAUTHENTICATION_HEADER.toLowerCase()];
        return issueApiKey(
          ctx,
          meta(request),
          request.params.username,
          Array.isArray(header) ? header[0] : header,
          readOtp(request),
        );
      },
    );
  };
}
