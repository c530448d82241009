import type { FastifyReply, FastifyRequest } from 'fastify';
import type { Logger } from 'pino';
import type { RepositoryHandle } from '../sdk/format.ts';
import { collectGarbage, type GcReport } from './gc.ts';
import { OciError } from './oci.ts';
import type { OciRegistry } from './v2-call.ts';

/** Garbage collection over every Docker repository, as the server (system handles): the `oci.gc` job and the admin endpoint. */
export async function collectRegistryGarbage(
  registry: OciRegistry,
  opts: { graceMs: number; dryRun: boolean; log: Logger },
): Promise<GcReport> {
  const all: RepositoryHandle[] = [];
  for (const key of await registry.core.repositoryKeys('docker')) {
    const handle = await registry.core.systemHandle(key);
    if (handle) all.push(handle);
  }
  return collectGarbage(all, { ...opts, busy: registry.uploads.names() });
}

/**
 * The registry's background work, through the core's jobs facility (no timer here, no call to the
 * server's own routes): garbage collection (`oci.gc`, one node at a time) and the expiry of idle
 * upload sessions (`oci.uploads-expire`: sessions live in each node's home, so every node expires its own).
 */
export function registerOciJobs(registry: OciRegistry): void {
  const { settings, jobs } = registry.core;
  jobs.recurring({
    name: 'oci.gc',
    scope: 'cluster',
    intervalMs: settings.ociGcIntervalSecs * 1000,
    run: ({ log }) =>
      collectRegistryGarbage(registry, { graceMs: settings.ociGcGraceSecs * 1000, dryRun: false, log }),
  });
  jobs.recurring({
    name: 'oci.uploads-expire',
    scope: 'node',
    intervalMs: Math.min(3600, Math.max(60, settings.ociUploadExpirySecs / 4)) * 1000,
    run: async ({ log }) => {
      const result = await registry.uploads.expire();
      if (result.expired > 0) log.info(result, 'oci: expired uploads dropped');
      return result;
    },
  });
}

/** `POST /api/docker/gc`: admins run garbage collection (dry-run with `?dryRun=true`, `graceSecs` to override the grace period). */
export function gcEndpoint(registry: OciRegistry) {
  return async (
    request: FastifyRequest<{ Querystring: { dryRun?: string; graceSecs?: string } }>,
    reply: FastifyReply,
  ) => {
    if (!request.principal) throw new OciError(401, 'UNAUTHORIZED', 'Authentication is required');
    if (!request.principal.admin)
      throw new OciError(403, 'DENIED', 'Only administrators run garbage collection');
    const grace =
      request.query.graceSecs !== undefined
        ? Number(request.query.graceSecs)
        : registry.core.settings.ociGcGraceSecs;
    if (!Number.isFinite(grace) || grace < 0)
      throw new OciError(400, 'UNSUPPORTED', 'graceSecs must be a non-negative number');
    const report = await collectRegistryGarbage(registry, {
      graceMs: grace * 1000,
      dryRun: request.query.dryRun === 'true',
      log: request.log as unknown as Logger,
    });
    return reply.send(report);
  };
}
