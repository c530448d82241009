import type { FastifyInstance } from 'fastify';
import type { Platform } from '../../platform/platform.ts';
import { listRepositoryHeads } from '../repositories/repositories.api.ts';
import { registerPolicies } from './policies/index.ts';

/**
 * Scanning and SBOM (issue 16): the OSV advisory database (`advisories/`, each ecosystem's version
 * order in `versions/`), what artifacts contain (`components/`) and their SBOMs (`sbom/`), and the
 * scans, policies, watches, violations and blocking of the stored artifacts, with Xray's REST paths
 * and the console's `/xray/ui/…` calls. Everything runs offline: no advisory data ships or is
 * downloaded without an admin's import.
 */
export async function registerScanning(app: FastifyInstance, platform: Platform): Promise<void> {
  // advisories: the OSV database, custom issues and their routes (issue 16 "Advisory database")
  const { AdvisoryDatabase, advisoriesRoutes } = await import('./advisories/index.ts');
  const advisories = new AdvisoryDatabase(platform);
  await app.register(advisoriesRoutes(advisories));
  // scans and policies: register here
  // scans: the pipeline (deploy/cache trigger, scan and re-match jobs), scan routes, SBOMs, npm audit
  const { registerScans } = await import('./scans/index.ts');
  const { scans, reader } = await registerScans(app, platform, advisories);
  // policies, watches, violations, ignore rules, blocking; `policies.onScan` is the ScanListener the scans call
  const policies = await registerPolicies(app, platform);
  scans.onScan(policies.onScan);
  // block_download.unscanned: a file of a watched repository waits for its verdict (asked only
  // while such a policy is in force).
  policies.service.useScanStates(async (repositoryId, path) => {
    const head = (await listRepositoryHeads(platform.database.db)).find((h) => h.id === repositoryId);
    if (!head) return null;
    // A scannable file of an indexed repository with no scan yet (a generic archive just cached) is 'not scanned'.
    const state =
      (await scans.scanState(repositoryId, path)) ??
      ((await scans.isIndexed(head.id)) && (await scans.scannable(head, path))
        ? { status: 'not scanned' as const }
        : null);
    return state ? { repoKey: head.key, status: state.status } : null;
  });
  // ...and a download of a file not yet scanned scans it in the request (issue 16 "Blocking").
  const { scanBeforeServing } = await import('./scans/scan-before-serving.ts');
  policies.service.useScanBeforeServing(scanBeforeServing(scans));
  reader.useBlockedReason((file) => policies.service.blockedReason(file));
  // An image's layers and config are refused with its blocked manifest (issue 16 "Blocking", OCI).
  const { ociBlobGate } = await import('./policies/oci-blob-gate.ts');
  app.repositories.artifactExtensions.register(
    ociBlobGate({ db: platform.database.db, blobs: platform.blobs, policies: policies.service }),
  );
}
