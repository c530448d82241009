import type { FastifyPluginAsyncZod } from '@fastify/type-provider-zod';
import {
  LOG_NODE_HEADER,
  logConfigQuerySchema,
  logConfigSchema,
  logDataQuerySchema,
  logDataSchema,
  type NodeStatus,
} from '@granary/contracts';
import type { FastifyReply, FastifyRequest } from 'fastify';
import { z } from 'zod';
import { checkLogService, type LogFiles } from './logs.service.ts';
import { forwardToNode, nodeToAsk } from './node-forward.ts';

const V1 = '/ui/api/v1';
const tags = ['system'];
const logTypeParams = z.object({ logType: z.string().max(100) });

/**
 * The live log viewer's calls (spec 001 §7 "Service status and logs"), for administrators: the console's
 * `GET /system/logs/config/{logType}` and `GET /system/logs/data/{logType}` (node in `nodeId`), and their
 * REST twins at Artifactory's paths `GET /api/system/logs/config` and `GET /api/system/logs/data` (node in
 * the `X-Granary-Node-Id` header). A request for another node's logs is answered by that node.
 */
export function logsRoutes(deps: {
  files: LogFiles;
  nodes: () => Promise<NodeStatus[]>;
}): FastifyPluginAsyncZod {
  return async (app) => {
    const { files } = deps;
    /** Answers from the node asked, when it is not this one; true when the answer was sent. */
    const answeredElsewhere = async (
      request: FastifyRequest,
      reply: FastifyReply,
      nodeId: string | undefined,
    ): Promise<boolean> => {
      const node = await nodeToAsk(nodeId, deps.nodes, request, 'its logs');
      if (!node) return false;
      await forwardToNode(node, request, reply, 'its logs');
      return true;
    };
    const headerNode = (request: FastifyRequest): string | undefined => {
      const v = request.headers[LOG_NODE_HEADER];
      return typeof v === 'string' && v ? v : undefined;
    };

    app.get(
      `${V1}/system/logs/config/:logType`,
      {
        config: { access: 'admin' },
        schema: {
          tags,
          summary: "A node's log files and the viewer's refresh rate",
          params: logTypeParams,
          querystring: logConfigQuerySchema,
          response: { 200: logConfigSchema },
        },
      },
      async (request, reply) => {
        checkLogService(request.params.logType);
        if (await answeredElsewhere(request, reply, request.query.nodeId)) return reply;
        return files.config();
      },
    );
    app.get(
      `${V1}/system/logs/data/:logType`,
      {
        config: { access: 'admin' },
        schema: {
          tags,
          summary: 'A log file from an offset on (at most 300 KB)',
          params: logTypeParams,
          querystring: logDataQuerySchema,
          response: { 200: logDataSchema },
        },
      },
      async (request, reply) => {
        checkLogService(request.params.logType);
        if (await answeredElsewhere(request, reply, request.query.nodeId)) return reply;
        const { id, file_size, file_id } = request.query;
        return files.read(id, file_size, file_id);
      },
    );

    // REST twins of Artifactory's `GET /api/system/logs/config` and `GET /api/system/logs/data`.
    const nodeHeader = z.looseObject({ [LOG_NODE_HEADER]: z.string().max(200).optional() });
    app.get(
      '/api/system/logs/config',
      {
        config: { access: 'admin' },
        schema: {
          tags,
          summary: `This node's log files (another node's with the ${LOG_NODE_HEADER} header)`,
          headers: nodeHeader,
          response: { 200: logConfigSchema },
        },
      },
      async (request, reply) => {
        if (await answeredElsewhere(request, reply, headerNode(request))) return reply;
        return files.config();
      },
    );
    app.get(
      '/api/system/logs/data',
      {
        config: { access: 'admin' },
        schema: {
          tags,
          summary: 'A log file from the offset `file_size` on (at most 300 KB)',
          headers: nodeHeader,
          querystring: logDataQuerySchema.omit({ nodeId: true }),
          response: { 200: logDataSchema },
        },
      },
      async (request, reply) => {
        if (await answeredElsewhere(request, reply, headerNode(request))) return reply;
        const { id, file_size, file_id } = request.query;
        return files.read(id, file_size, file_id);
      },
    );
  };
}
