import { Readable } from 'node:stream';
import type { ReadableStream as WebReadableStream } from 'node:stream/web';
import { LOG_FORWARDED_HEADER, type NodeStatus, OFFLINE_NODE_STATUS } from '@granary/contracts';
import type { FastifyReply, FastifyRequest } from 'fastify';
import { NotFoundError, UpstreamError } from '../../platform/errors.ts';

/** How long a node waits for another node's answer to start. */
export const NODE_FORWARD_TIMEOUT_MS = 5_000;
/** Headers of the other node's answer handed to the caller (a zip's size and name, a log's type). */
const PASSED_BACK = ['content-type', 'content-length', 'content-disposition', 'cache-control'];

/**
 * The node that answers for `nodeId`: null when this node does (or none is named). Unknown nodes are a
 * 404; a request that was already forwarded once is never forwarded again (an internal URL that leads
 * to the wrong node would loop).
 */
export async function nodeToAsk(
  nodeId: string | null | undefined,
  nodes: () => Promise<NodeStatus[]>,
  request: FastifyRequest,
  what: string,
): Promise<NodeStatus | null> {
  if (!nodeId) return null;
  const node = (await nodes()).find((n) => n.node_id === nodeId);
  if (!node) throw new NotFoundError(`No node '${nodeId}' in this installation`);
  if (node.current) return null;
  if (request.headers[LOG_FORWARDED_HEADER])
    throw new UpstreamError(
      `Node '${nodeId}' was asked through another node, but its internal URL ${node.url} leads elsewhere`,
    );
  if (node.status === OFFLINE_NODE_STATUS)
    throw new UpstreamError(`Node '${nodeId}' is Offline: ${what} cannot be reached now`);
  return node;
}

/**
 * Answers the caller with another node's answer to the same request (method, path and query): the
 * caller's own credentials go along, so that node checks permission itself, and the body streams
 * through (a support bundle's zip is not held in memory). The URL comes from the nodes table, where
 * each node registers its own internal URL (GRANARY_NODE_URL), never from the request.
 */
export async function forwardToNode(
  node: NodeStatus,
  request: FastifyRequest,
  reply: FastifyReply,
  what: string,
  timeoutMs = NODE_FORWARD_TIMEOUT_MS,
): Promise<FastifyReply> {
  const headers: Record<string, string> = { [LOG_FORWARDED_HEADER]: '1' };
  for (const name of ['authorization', 'cookie', 'accept', 'x-granary-otp']) {
    const value = request.headers[name];
    if (typeof value === 'string') headers[name] = value;
  }
  const target = `${node.url.replace(/\/+$/, '')}${request.url}`;
  let res: Response;
  try {
    res = await fetch(target, {
      method: request.method,
      headers,
      redirect: 'manual',
      signal: AbortSignal.timeout(timeoutMs),
    });
  } catch (err) {
    const why = err instanceof Error ? err.message : String(err);
    throw new UpstreamError(`Node '${node.node_id}' at ${node.url} could not be reached for ${what}: ${why}`);
  }
  if (res.status >= 500 || (res.status >= 300 && res.status < 400)) {
    await res.body?.cancel();
    throw new UpstreamError(`Node '${node.node_id}' at ${node.url} answered ${res.status} for ${what}`);
  }
  reply.code(res.status);
  for (const name of PASSED_BACK) {
    const value = res.headers.get(name);
    if (value !== null) reply.header(name, value);
  }
  if (!res.body) return reply.send();
  return reply.send(Readable.fromWeb(res.body as WebReadableStream<Uint8Array>));
}
