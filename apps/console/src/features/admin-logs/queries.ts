import { logConfigSchema, logDataSchema } from '@granary/contracts';
import { queryOptions } from '@tanstack/react-query';
import { z } from 'zod';
import { api } from '../../shared/api/index.ts';
import type { LogNode, LogRead } from './logViewerReducer.ts';

/**
 * spec 001 §7 "Service status and logs": the nodes (`GET /system/status/nodes`), a node's log config
 * (`GET /system/logs/config/{logType}?nodeId=`) and its data from an offset
 * (`GET /system/logs/data/{logType}?nodeId=&id=&file_size=`), all under the console API prefix.
 */
const enc = encodeURIComponent;

export const logKeys = {
  nodes: (service: string) => ['admin', 'logs', service, 'nodes'] as const,
  config: (service: string, node: string | null) => ['admin', 'logs', service, node, 'config'] as const,
  data: (service: string, node: string | null, read: LogRead | null) =>
    ['admin', 'logs', service, node, 'data', read] as const,
};

const nodesSchema = z.looseObject({
  nodes: z.array(z.looseObject({ node_id: z.string(), status: z.string(), current: z.boolean().optional() })),
});

/** The nodes of the chosen service (this server's nodes for `granary`). */
export const logNodesQueryOptions = (service: string) =>
  queryOptions({
    queryKey: logKeys.nodes(service),
    queryFn: async ({ signal }): Promise<LogNode[]> =>
      (await api.get('system/status/nodes', nodesSchema, { signal })).nodes,
  });

export const logConfigQueryOptions = (service: string, node: string | null) =>
  queryOptions({
    queryKey: logKeys.config(service, node),
    queryFn: ({ signal }) =>
      api.get(`system/logs/config/${enc(service)}`, logConfigSchema.loose(), {
        signal,
        query: { nodeId: node ?? undefined },
      }),
    enabled: node !== null,
    retry: false,
  });

/** One read of a log file; each read is its own query (the viewer appends what it answers). */
export const logDataQueryOptions = (service: string, node: string | null, read: LogRead | null) =>
  queryOptions({
    queryKey: logKeys.data(service, node, read),
    queryFn: ({ signal }) =>
      api.get(`system/logs/data/${enc(service)}`, logDataSchema.loose(), {
        signal,
        query: {
          nodeId: node ?? undefined,
          id: read?.file,
          file_size: read?.offset ?? 0,
          file_id: read?.fileId,
        },
      }),
    enabled: node !== null && read !== null,
    retry: false,
    staleTime: Number.POSITIVE_INFINITY,
    gcTime: 0,
    refetchOnWindowFocus: false,
  });
