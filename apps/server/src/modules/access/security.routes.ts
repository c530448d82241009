import type { FastifyPluginAsyncZod } from '@fastify/type-provider-zod';
import {
  auditListSchema,
  groupSchema,
  groupWriteSchema,
  namedListItemSchema,
  permissionTargetSchema,
  permissionTargetWriteSchema,
  securityConfigPatchSchema,
  securityConfigSchema,
  tokenCreateRequestSchema,
  tokenCreateResponseSchema,
  tokenListSchema,
  userListItemSchema,
  userSchema,
  userWriteSchema,
} from '@granary/contracts';
import { z } from 'zod';
import { publicBaseUrl } from '../../platform/http/base-url.ts';
import { auditOf } from './audit.service.ts';
import { readOtp } from './authentication.ts';
import { type AccessContext, requestMeta } from './context.ts';
import { deleteGroup, getGroup, listGroups, putGroup } from './groups.service.ts';
import { resetMfa } from './login.service.ts';
import {
  deletePermissionTarget,
  getPermissionTarget,
  listPermissionTargets,
  putPermissionTarget,
} from './permissions.service.ts';
import { publicSecurityConfig } from './settings.service.ts';
import { createAccessToken, listTokens, revokeToken } from './tokens.service.ts';
import {
  deleteUser,
  getUser,
  listUsers,
  putUser,
  requireUser,
  unlockUser,
  updateUser,
} from './users.service.ts';

const name = z.object({ name: z.string().min(1) });
const tags = ['security'];

/** The public REST API of users, groups, permission targets, tokens and security settings (DESIGN.md). */
export function securityRoutes(ctx: AccessContext): FastifyPluginAsyncZod {
  return async (app) => {
    const uri = (request: Parameters<typeof publicBaseUrl>[0], kind: string, n: string) =>
      `${publicBaseUrl(request, ctx.baseUrl)}/api/security/${kind}/${encodeURIComponent(n)}`;

    // ---- users
    app.get(
      '/api/security/users',
      {
        config: { access: 'admin' },
        schema: { tags, summary: 'List users', response: { 200: z.array(userListItemSchema) } },
      },
      async (request) =>
        (await listUsers(ctx)).map((u) => ({
          name: u.name,
          uri: uri(request, 'users', u.name),
          realm: u.realm,
        })),
    );
    app.get(
      '/api/security/users/:name',
      {
        config: { access: 'admin' },
        schema: { tags, summary: 'Get a user', params: name, response: { 200: userSchema } },
      },
      async (request) => getUser(ctx, request.params.name),
    );
    app.put(
      '/api/security/users/:name',
      {
        config: { access: 'admin' },
        schema: {
          tags,
          summary: 'Create or replace a user',
          params: name,
          body: userWriteSchema,
          response: { 200: userSchema, 201: userSchema },
        },
      },
      async (request, reply) => {
        const { created, user } = await putUser(
          ctx,
          requestMeta(request, ctx.baseUrl),
          request.params.name,
          request.body,
        );
        return reply.code(created ? 201 : 200).send(user);
      },
    );
    app.post(
      '/api/security/users/:name',
      {
        config: { access: 'admin' },
        schema: {
          tags,
          summary: 'Update a user (only the fields sent)',
          params: name,
          body: userWriteSchema,
          response: { 200: userSchema },
        },
      },
      async (request) => {
        await updateUser(
          ctx,
          requestMeta(request, ctx.baseUrl),
          await requireUser(ctx.db, request.params.name),
          request.body,
        );
        return getUser(ctx, request.params.name);
      },
    );
    app.delete(
      '/api/security/users/:name',
      { config: { access: 'admin' }, schema: { tags, summary: 'Delete a user', params: name } },
      async (request, reply) => {
        await deleteUser(ctx, requestMeta(request, ctx.baseUrl), request.params.name);
        return reply.code(204).send();
      },
    );
    app.post(
      '/api/security/users/:name/unlock',
      { config: { access: 'admin' }, schema: { tags, summary: 'Clear a sign-in lockout', params: name } },
      async (request, reply) => {
        await unlockUser(ctx, requestMeta(request, ctx.baseUrl), request.params.name);
        return reply.code(204).send();
      },
    );
    app.delete(
      '/api/security/users/:name/mfa',
      {
        config: { access: 'admin' },
        schema: { tags, summary: "Remove a user's authenticator", params: name },
      },
      async (request, reply) => {
        await resetMfa(
          ctx,
          requestMeta(request, ctx.baseUrl),
          await requireUser(ctx.db, request.params.name),
        );
        return reply.code(204).send();
      },
    );

    // ---- groups
    app.get(
      '/api/security/groups',
      {
        config: { access: 'admin' },
        schema: { tags, summary: 'List groups', response: { 200: z.array(namedListItemSchema) } },
      },
      async (request) =>
        (await listGroups(ctx)).map((g) => ({ name: g.name, uri: uri(request, 'groups', g.name) })),
    );
    app.get(
      '/api/security/groups/:name',
      {
        config: { access: 'admin' },
        schema: { tags, summary: 'Get a group', params: name, response: { 200: groupSchema } },
      },
      async (request) => getGroup(ctx, request.params.name),
    );
    app.put(
      '/api/security/groups/:name',
      {
        config: { access: 'admin' },
        schema: {
          tags,
          summary: 'Create or update a group',
          params: name,
          body: groupWriteSchema,
          response: { 200: groupSchema, 201: groupSchema },
        },
      },
      async (request, reply) => {
        const { created, group } = await putGroup(
          ctx,
          requestMeta(request, ctx.baseUrl),
          request.params.name,
          request.body,
        );
        return reply.code(created ? 201 : 200).send(group);
      },
    );
    app.delete(
      '/api/security/groups/:name',
      { config: { access: 'admin' }, schema: { tags, summary: 'Delete a group', params: name } },
      async (request, reply) => {
        await deleteGroup(ctx, requestMeta(request, ctx.baseUrl), request.params.name);
        return reply.code(204).send();
      },
    );

    // ---- permission targets
    app.get(
      '/api/security/permissions',
      {
        config: { access: 'admin' },
        schema: { tags, summary: 'List permission targets', response: { 200: z.array(namedListItemSchema) } },
      },
      async (request) =>
        (await listPermissionTargets(ctx)).map((t) => ({
          name: t.name,
          uri: uri(request, 'permissions', t.name),
        })),
    );
    app.get(
      '/api/security/permissions/:name',
      {
        config: { access: 'admin' },
        schema: {
          tags,
          summary: 'Get a permission target',
          params: name,
          response: { 200: permissionTargetSchema },
        },
      },
      async (request) => getPermissionTarget(ctx, request.params.name),
    );
    app.put(
      '/api/security/permissions/:name',
      {
        config: { access: 'admin' },
        schema: {
          tags,
          summary: 'Create or replace a permission target',
          params: name,
          body: permissionTargetWriteSchema,
          response: { 200: permissionTargetSchema, 201: permissionTargetSchema },
        },
      },
      async (request, reply) => {
        const { created, target } = await putPermissionTarget(
          ctx,
          requestMeta(request, ctx.baseUrl),
          request.params.name,
          request.body,
        );
        return reply.code(created ? 201 : 200).send(target);
      },
    );
    app.delete(
      '/api/security/permissions/:name',
      { config: { access: 'admin' }, schema: { tags, summary: 'Delete a permission target', params: name } },
      async (request, reply) => {
        await deletePermissionTarget(ctx, requestMeta(request, ctx.baseUrl), request.params.name);
        return reply.code(204).send();
      },
    );

    // ---- access tokens
    app.post(
      '/api/security/tokens',
      {
        config: { access: 'authenticated' },
        schema: {
          tags,
          summary: 'Create an access token',
          body: tokenCreateRequestSchema,
          response: { 200: tokenCreateResponseSchema },
        },
      },
      async (request) =>
        createAccessToken(ctx, requestMeta(request, ctx.baseUrl), request.body, { otp: readOtp(request) }),
    );
    app.get(
      '/api/security/tokens',
      {
        config: { access: 'authenticated' },
        schema: { tags, summary: 'List access tokens', response: { 200: tokenListSchema } },
      },
      async (request) => ({ tokens: await listTokens(ctx, request.principal!) }),
    );
    app.delete(
      '/api/security/tokens/:id',
      {
        config: { access: 'authenticated' },
        schema: { tags, summary: 'Revoke an access token', params: z.object({ id: z.string() }) },
      },
      async (request, reply) => {
        await revokeToken(ctx, requestMeta(request, ctx.baseUrl), request.params.id);
        return reply.code(204).send();
      },
    );

    // ---- security configuration and audit trail
    app.get(
      '/api/security/configuration',
      {
        config: { access: 'admin' },
        schema: { tags, summary: 'Security settings', response: { 200: securityConfigSchema } },
      },
      async () => publicSecurityConfig(await ctx.settings.get()),
    );
    app.patch(
      '/api/security/configuration',
      {
        config: { access: 'admin' },
        schema: {
          tags,
          summary: 'Change security settings',
          body: securityConfigPatchSchema,
          response: { 200: securityConfigSchema },
        },
      },
      async (request) => {
        const next = await ctx.settings.update(request.body);
        ctx.credentials.clear();
        await ctx.audit.record({
          ...auditOf(requestMeta(request, ctx.baseUrl)),
          action: 'security.configure',
          result: 'success',
          details: { changed: Object.keys(request.body) },
        });
        return publicSecurityConfig(next);
      },
    );
    app.get(
      '/api/security/audit',
      {
        config: { access: 'admin' },
        schema: {
          tags,
          summary: 'Recent security events',
          querystring: z.object({ limit: z.coerce.number().int().min(1).max(1000).default(100) }),
          response: { 200: auditListSchema },
        },
      },
      async (request) => ({
        events: (await ctx.audit.recent(request.query.limit)).map((e) => ({
          id: e.id,
          at: e.at.toISOString(),
          actor: e.actor,
          action: e.action,
          target: e.target,
          ip: e.ip,
          result: e.result as 'success' | 'failure' | 'denied',
          requestId: e.requestId,
        })),
      }),
    );
  };
}
