import type { FastifyInstance } from 'fastify';
import type { Platform } from '../../platform/platform.ts';
import type { AccessModule } from '../access/index.ts';
import type { WebhooksContext } from '../webhooks/index.ts';

/**
 * Scanning and SBOM (issue 16): the OSV advisory database (`advisories/`, each ecosystem's version
 * order in `versions/`), what artifacts contain (`components/`) and their SBOMs (`sbom/`), and the
 * scans, policies, watches, violations and blocking of the stored artifacts, with Xray's REST paths
 * and the console's `/xray/ui/…` calls. Everything runs offline: no advisory data ships or is
 * downloaded without an admin's import.
 */
export async function registerScanning(
  app: FastifyInstance,
  platform: Platform,
  access: AccessModule,
  users: { webhooks: WebhooksContext },
): Promise<void> {
  void app;
  void platform;
  void access;
  void users;
  // advisories: register here
  // scans and policies: register here
}
