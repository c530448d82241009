import type { FastifyPluginAsyncZod } from '@fastify/type-provider-zod';
import {
  changePasswordRequestSchema,
  forgotPasswordRequestSchema,
  forgotPasswordResponseSchema,
  registrationRequestSchema,
  registrationResponseSchema,
  resetKeyQuerySchema,
  resetPasswordRequestSchema,
  userDataSchema,
  validateKeyResponseSchema,
} from '@granary/contracts';
import { z } from 'zod';
import { type AccessContext, requestMeta } from './context.ts';
import { setSessionCookie } from './cookies.ts';
import { changePassword, forgotPassword, resetPassword, validateResetKey } from './passwords.service.ts';
import { register } from './registration.service.ts';

const P = '/ui/api/v1/';
const tags = ['console auth'];

/** Forgot / reset / change password (spec 000 §4, §7, §8) and self-registration, under /ui/api/v1/. */
export function passwordRoutes(ctx: AccessContext): FastifyPluginAsyncZod {
  return async (app) => {
    app.post(
      `${P}ui/auth/forgotpassword`,
      {
        config: { access: 'public' },
        schema: { tags, body: forgotPasswordRequestSchema, response: { 200: forgotPasswordResponseSchema } },
      },
      async (request) => forgotPassword(ctx, requestMeta(request, ctx.baseUrl), request.body.user),
    );
    app.post(
      `${P}validatetoken`,
      {
        config: { access: 'public' },
        schema: { tags, querystring: resetKeyQuerySchema, response: { 200: validateKeyResponseSchema } },
      },
      async (request) => validateResetKey(ctx, requestMeta(request, ctx.baseUrl), request.query.key),
    );
    app.post(
      `${P}ui/auth/resetpassword`,
      {
        config: { access: 'public' },
        schema: {
          tags,
          querystring: resetKeyQuerySchema,
          body: resetPasswordRequestSchema,
          response: { 200: userDataSchema },
        },
      },
      async (request, reply) => {
        const grant = await resetPassword(
          ctx,
          requestMeta(request, ctx.baseUrl),
          request.query.key,
          request.body,
        );
        setSessionCookie(reply, request, grant.token, grant.maxAgeSeconds);
        return grant.userData;
      },
    );
    app.post(
      `${P}changePassword`,
      {
        config: { access: 'public' },
        schema: {
          tags,
          querystring: z.object({ prefix: z.string().optional() }),
          body: changePasswordRequestSchema,
          response: { 200: userDataSchema },
        },
      },
      async (request, reply) => {
        const grant = await changePassword(ctx, requestMeta(request, ctx.baseUrl), request.body);
        setSessionCookie(reply, request, grant.token, grant.maxAgeSeconds);
        return grant.userData;
      },
    );
    app.post(
      `${P}ui/auth/register`,
      {
        config: { access: 'public' },
        schema: { tags, body: registrationRequestSchema, response: { 201: registrationResponseSchema } },
      },
      async (request, reply) =>
        reply.code(201).send(await register(ctx, requestMeta(request, ctx.baseUrl), request.body)),
    );
  };
}
