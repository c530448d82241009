import { createReadStream } from 'node:fs';
import type { FastifyPluginAsyncZod } from '@fastify/type-provider-zod';
import {
  type NodeStatus,
  SUPPORT_BUNDLE_STATUSES,
  supportBundleRequestSchema,
  supportBundleSchema,
} from '@granary/contracts';
import type { FastifyReply, FastifyRequest } from 'fastify';
import { z } from 'zod';
import { publicBaseUrl } from '../../../platform/http/base-url.ts';
import { forwardToNode, nodeToAsk } from '../node-forward.ts';
import type { SupportBundles } from './support.service.ts';

const tags = ['system'];
const UI = '/ui/api/v1/ui/userSupport';
const API = '/api/system/support';
const idParams = z.object({ id: z.string().min(1).max(100) });
const createdSchema = z.object({
  id: z.string(),
  artifactory: z.object({ service_id: z.string(), bundle_url: z.string() }),
});

/**
 * Support bundles, admins only (every route keeps the default `admin` access, declared anyway):
 * the console's `ui/userSupport/…` calls (spec 001 §7) and Artifactory's public twins at
 * `/api/system/support/bundle…` with its JSON, so its scripts work unchanged.
 */
export function supportRoutes(
  bundles: SupportBundles,
  opts: { nodeId: string; baseUrl?: string; nodes: () => Promise<NodeStatus[]> },
): FastifyPluginAsyncZod {
  const serviceId = `granary@${opts.nodeId}`;
  const archiveUrl = (request: FastifyRequest, id: string) =>
    `${publicBaseUrl(request, opts.baseUrl)}${API}/bundle/${encodeURIComponent(id)}/archive`;
  /**
   * A bundle's zip is kept by the node that generated it: another node answers by asking that one
   * (streamed through). Deleting through another node removes the bundle at once; its zip goes when
   * its node next starts if that node cannot be asked now.
   */
  const ownerNode = async (id: string, request: FastifyRequest) => {
    const owner = await bundles.ownerOf(id);
    return owner && owner !== opts.nodeId
      ? nodeToAsk(owner, opts.nodes, request, 'the support bundle')
      : null;
  };
  const sendArchive = async (id: string, request: FastifyRequest, reply: FastifyReply) => {
    const owner = await ownerNode(id, request);
    if (owner) return forwardToNode(owner, request, reply, 'the support bundle', 30_000);
    const archive = await bundles.archive(id);
    return reply
      .type('application/zip')
      .header('content-length', archive.size)
      .header('content-disposition', `attachment; filename="${archive.name}"`)
      .header('cache-control', 'no-store')
      .send(createReadStream(archive.file));
  };

  const removeBundle = async (id: string, request: FastifyRequest, reply: FastifyReply) => {
    const owner = await ownerNode(id, request).catch(() => null);
    if (owner) {
      const answered = await forwardToNode(owner, request, reply, 'the support bundle').catch(() => null);
      if (answered) return answered;
    }
    await bundles.delete(id);
    return reply.code(204).send();
  };

  return async (app) => {
    // --- the console ------------------------------------------------------------------------------
    app.get(
      `${UI}/listBundles`,
      {
        config: { access: 'admin' },
        schema: {
          tags,
          summary: 'Support bundles, newest first',
          response: { 200: z.array(supportBundleSchema) },
        },
      },
      async () => bundles.list(),
    );
    app.post(
      `${UI}/generateBundle`,
      {
        config: { access: 'admin' },
        schema: {
          tags,
          summary: 'Generate a support bundle (in the background)',
          body: supportBundleRequestSchema,
          response: { 200: supportBundleSchema },
        },
      },
      async (request) => bundles.create(request.body, request.principal!.name),
    );
    app.delete(
      `${UI}/deleteBundle/:id`,
      { config: { access: 'admin' }, schema: { tags, summary: 'Delete a support bundle', params: idParams } },
      async (request, reply) => removeBundle(request.params.id, request, reply),
    );
    app.get(
      `${UI}/downloadBundle/:id`,
      {
        config: { access: 'admin' },
        schema: { tags, summary: 'Download a support bundle (zip)', params: idParams },
      },
      async (request, reply) => sendArchive(request.params.id, request, reply),
    );

    // --- Artifactory's public API -----------------------------------------------------------------
    app.post(
      `${API}/bundle`,
      {
        config: { access: 'admin' },
        schema: {
          tags,
          summary: 'Create a support bundle',
          body: supportBundleRequestSchema,
          response: { 200: createdSchema },
        },
      },
      async (request) => {
        const bundle = await bundles.create(request.body, request.principal!.name);
        return {
          id: bundle.id,
          artifactory: { service_id: serviceId, bundle_url: archiveUrl(request, bundle.id) },
        };
      },
    );
    app.get(
      `${API}/bundles`,
      {
        config: { access: 'admin' },
        schema: {
          tags,
          summary: 'List support bundles',
          response: {
            200: z.object({
              count: z.number(),
              bundles: z.array(
                z.object({
                  id: z.string(),
                  name: z.string(),
                  description: z.string(),
                  created: z.string(),
                  status: z.enum(SUPPORT_BUNDLE_STATUSES),
                }),
              ),
            }),
          },
        },
      },
      async () => {
        const list = await bundles.list();
        return {
          count: list.length,
          bundles: list.map((b) => ({
            id: b.id,
            name: b.name,
            description: b.description,
            created: b.create_date,
            status: b.status,
          })),
        };
      },
    );
    app.get(
      `${API}/bundle/:id`,
      {
        config: { access: 'admin' },
        schema: { tags, summary: 'A support bundle’s details', params: idParams },
      },
      async (request) => {
        const b = await bundles.get(request.params.id);
        return {
          id: b.id,
          name: b.name,
          description: b.description,
          created: b.create_date,
          status: b.status,
          parameters: b.parameters,
          artifactory: {
            service_id: b.node_id ? `granary@${b.node_id}` : serviceId,
            bundle_url: archiveUrl(request, b.id),
            status: b.status,
            size: b.size,
          },
        };
      },
    );
    app.get(
      `${API}/bundle/:id/archive`,
      {
        config: { access: 'admin' },
        schema: { tags, summary: 'Download a support bundle (zip)', params: idParams },
      },
      async (request, reply) => sendArchive(request.params.id, request, reply),
    );
    app.delete(
      `${API}/bundle/:id`,
      { config: { access: 'admin' }, schema: { tags, summary: 'Delete a support bundle', params: idParams } },
      async (request, reply) => removeBundle(request.params.id, request, reply),
    );
  };
}
