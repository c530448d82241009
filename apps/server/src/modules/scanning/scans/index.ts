import type { FastifyInstance } from 'fastify';
import type { Platform } from '../../../platform/platform.ts';
import { createSystemHandle, findRepository } from '../../repositories/repositories.api.ts';
import { extractArtifact } from '../components/extract-artifact.ts';
import type { ScanRecord } from '../model.ts';
import { attachSbomReferrer } from '../sbom/oci-referrer.ts';
import { npmBulk } from './npm-audit.ts';
import { ScansReader } from './scans.read.ts';
import { scansRoutes } from './scans.routes.ts';
import { type AdvisoryPort, ScanService } from './scans.service.ts';

export { ScansReader } from './scans.read.ts';
export { type AdvisoryPort, ScanService } from './scans.service.ts';

/**
 * The scan pipeline (issue 16): the trigger on deploys and caches, the scan and re-match jobs, the
 * scans' console and Xray routes, SBOMs, and `npm audit` through the formats' `advisories` hook.
 * Listeners (the policies) join with `scans.onScan(listener)`.
 */
export async function registerScans(
  app: FastifyInstance,
  platform: Platform,
  advisories: AdvisoryPort,
): Promise<{ scans: ScanService; reader: ScansReader }> {
  const repos = app.repositories;
  let reader: ScansReader | null = null;
  const scans = new ScanService({
    db: platform.database.db,
    blobs: platform.blobs,
    log: platform.logging.server.child({ component: 'scanning' }),
    now: platform.now,
    jobs: platform.jobs,
    withLock: platform.database.withLock,
    advisories,
    extract: (input) => extractArtifact(input),
    // An image's CycloneDX SBOM is attached to it as an OCI referrer (issue 16 "SBOM").
    afterImageScan: async (scan: ScanRecord) => {
      const m = /^(.+)\/[^/]+\/manifest\.json$/.exec(scan.path);
      const repo = await findRepository(platform.database.db, scan.repoKey);
      if (!m || !repo || !scan.artifact || !reader) return;
      const document = reader.makeSbom(
        'cyclonedx',
        scan.artifact,
        scan.findings,
        scan.sha256,
        scan.scannedAt ?? new Date(),
      );
      await attachSbomReferrer(
        createSystemHandle(repos, repo),
        m[1]!,
        `sha256:${scan.sha256}`,
        Buffer.from(JSON.stringify(document)),
      );
    },
  });
  reader = new ScansReader(scans, repos, { baseUrl: platform.config.baseUrl });
  scans.register();
  repos.advisories = { npmBulk: (body) => npmBulk(advisories, scans, body) };
  await app.register(scansRoutes(reader));
  await app.register((await import('./xray-search.routes.ts')).xraySearchRoutes(scans, repos));
  return { scans, reader };
}
