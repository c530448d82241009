import type { FastifyInstance } from 'fastify';
import type { Platform } from '../../../platform/platform.ts';
import { storageGcRoutes } from './storage-gc.routes.ts';
import { StorageGcService } from './storage-gc.service.ts';

export { BLOB_GC_JOB, collectBlobs, reclaimable } from './blob-gc.ts';
export { checkConsistency } from './consistency.ts';
export { BLOB_CONSISTENCY_JOB, StorageGcService } from './storage-gc.service.ts';

/** Blob garbage collection (issue 21): its jobs and its admin routes. */
export async function registerStorageGc(app: FastifyInstance, platform: Platform): Promise<StorageGcService> {
  const gc = new StorageGcService(platform);
  gc.register();
  await app.register(storageGcRoutes(gc));
  return gc;
}
