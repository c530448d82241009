import type { FastifyPluginAsyncZod } from '@fastify/type-provider-zod';
import { haStatusSchema, healthDetailSchema, serviceStatusSchema } from '@granary/contracts';
import { z } from 'zod';
import type { NodeRegistry } from './nodes.service.ts';
import type { ServiceHealth } from './service-health.ts';

const V1 = '/ui/api/v1';
const tags = ['system'];

/**
 * Service status, HA status and node removal (spec 001 §7 "Service status and logs", issue 15), and the
 * administrator's health detail. Every route is for administrators (the route table's default too).
 * `GET /system/status/nodes` is in system.routes.ts.
 */
export function statusRoutes(nodes: NodeRegistry, health: ServiceHealth): FastifyPluginAsyncZod {
  return async (app) => {
    app.get(
      `${V1}/system/status/ha`,
      {
        config: { access: 'admin' },
        schema: {
          tags,
          summary: 'HA status: node group → nodes with node_id and status (only Online counts)',
          response: { 200: haStatusSchema },
        },
      },
      async () => nodes.haStatus(),
    );

    app.get(
      `${V1}/system/status/services`,
      {
        config: { access: 'admin' },
        schema: {
          tags,
          summary:
            'Service status: services keyed by type, each node with its status and the health of its parts',
          response: { 200: serviceStatusSchema },
        },
      },
      async (_request, reply) => {
        reply.header('cache-control', 'no-store');
        return nodes.serviceStatus();
      },
    );

    // spec 001 §7 `DELETE /access/api/v1/topology/{serviceId}/{nodeId}`: the REST path and its console twin.
    for (const base of ['/access/api/v1/topology', `${V1}/access/api/v1/topology`])
      app.delete(
        `${base}/:serviceId/:nodeId`,
        {
          config: { access: 'admin' },
          schema: {
            tags,
            summary: 'Remove a node silent for at least a day (409 while it is online or was seen recently)',
            params: z.object({ serviceId: z.string().min(1).max(200), nodeId: z.string().min(1).max(200) }),
            response: { 204: z.null() },
          },
        },
        async (request, reply) => {
          await nodes.remove(request.params.serviceId, request.params.nodeId);
          request.log.info(
            { nodeId: request.params.nodeId, by: request.principal?.name },
            'node removed by an administrator',
          );
          return reply.code(204).send(null);
        },
      );

    // The detailed health (issue 15): real probes, for administrators; `/api/system/health` stays public
    // with states only.
    app.get(
      '/api/v1/system/health/detail',
      {
        config: { access: 'admin' },
        schema: {
          tags,
          summary:
            'Health detail: database write probe, blob store write probe, event backlog, job lag, disk free (503 when one fails)',
          response: { 200: healthDetailSchema, 503: healthDetailSchema },
        },
      },
      async (_request, reply) => {
        const detail = await health.detail();
        return reply
          .code(detail.state === 'HEALTHY' ? 200 : 503)
          .header('cache-control', 'no-store')
          .send(detail);
      },
    );
  };
}
