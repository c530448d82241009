import type { FastifyPluginAsyncZod } from '@fastify/type-provider-zod';
import {
  projectCreateSchema,
  projectLimitSchema,
  projectMemberSchema,
  projectMembersSchema,
  projectMemberWriteSchema,
  projectSchema,
  projectUpdateSchema,
} from '@granary/contracts';
import { z } from 'zod';
import { type AccessContext, requestMeta } from './context.ts';
import {
  createProject,
  deleteProject,
  deleteProjectMember,
  getProject,
  listProjectMembers,
  listProjects,
  projectLimit,
  putProjectMember,
  updateProject,
} from './projects.service.ts';

const P = '/ui/api/v1/';
const tags = ['projects'];
const keyParam = z.object({ key: z.string().min(1) });
const memberParams = z.object({
  key: z.string().min(1),
  kind: z.enum(['users', 'groups']),
  name: z.string().min(1),
});
const kindParams = memberParams.omit({ name: true });
const kindOf = (k: 'users' | 'groups') => (k === 'users' ? 'user' : 'group');

/**
 * Projects (spec 000 §3, §7, §9; spec 001 §5, §9) at `projects` and `access/projects` under
 * /ui/api/v1/. Reads: signed-in users (admins all projects, others their own). Writes: admins;
 * members also by the project's own Project Admins when the project allows it (the service checks).
 */
export function projectRoutes(ctx: AccessContext): FastifyPluginAsyncZod {
  return async (app) => {
    app.get(
      `${P}projects/limit`,
      { config: { access: 'authenticated' }, schema: { tags, response: { 200: projectLimitSchema } } },
      async () => projectLimit(ctx),
    );
    for (const base of [`${P}projects`, `${P}access/projects`]) {
      app.get(
        base,
        { config: { access: 'authenticated' }, schema: { tags, response: { 200: z.array(projectSchema) } } },
        async (request) => listProjects(ctx, request.principal!),
      );
      app.get(
        `${base}/:key`,
        {
          config: { access: 'authenticated' },
          schema: { tags, params: keyParam, response: { 200: projectSchema } },
        },
        async (request) => getProject(ctx, request.principal!, request.params.key),
      );
      app.post(
        base,
        {
          config: { access: 'admin' },
          schema: { tags, body: projectCreateSchema, response: { 201: projectSchema } },
        },
        async (request, reply) =>
          reply.code(201).send(await createProject(ctx, requestMeta(request, ctx.baseUrl), request.body)),
      );
      app.put(
        `${base}/:key`,
        {
          config: { access: 'admin' },
          schema: { tags, params: keyParam, body: projectUpdateSchema, response: { 200: projectSchema } },
        },
        async (request) =>
          updateProject(ctx, requestMeta(request, ctx.baseUrl), request.params.key, request.body),
      );
      app.delete(
        `${base}/:key`,
        { config: { access: 'admin' }, schema: { tags, params: keyParam } },
        async (request, reply) => {
          await deleteProject(ctx, requestMeta(request, ctx.baseUrl), request.params.key);
          return reply.code(204).send();
        },
      );
      app.get(
        `${base}/:key/:kind`,
        {
          config: { access: 'authenticated' },
          schema: { tags, params: kindParams, response: { 200: projectMembersSchema } },
        },
        async (request) => ({
          members: await listProjectMembers(
            ctx,
            request.principal!,
            request.params.key,
            kindOf(request.params.kind),
          ),
        }),
      );
      app.put(
        `${base}/:key/:kind/:name`,
        {
          config: { access: 'authenticated' },
          schema: {
            tags,
            params: memberParams,
            body: projectMemberWriteSchema,
            response: { 200: projectMemberSchema },
          },
        },
        async (request) =>
          putProjectMember(
            ctx,
            requestMeta(request, ctx.baseUrl),
            request.params.key,
            kindOf(request.params.kind),
            request.params.name,
            request.body.roles,
          ),
      );
      app.delete(
        `${base}/:key/:kind/:name`,
        { config: { access: 'authenticated' }, schema: { tags, params: memberParams } },
        async (request, reply) => {
          await deleteProjectMember(
            ctx,
            requestMeta(request, ctx.baseUrl),
            request.params.key,
            kindOf(request.params.kind),
            request.params.name,
          );
          return reply.code(204).send();
        },
      );
    }
  };
}
