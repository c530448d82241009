import path from 'node:path';
import { ROOT, startServer } from './server.ts';
import { E2E_WORKERS } from './workers.ts';

export const ADMIN_PASSWORD = 'e2e-Admin-Passw0rd!';

/**
 * Starts one real server per Playwright worker for the whole run, each with its own GRANARY_HOME, so
 * spec files running at the same time never share state (a test that turns on anonymous access or
 * SSO auto-redirect changes only its worker's server). Workers find theirs through GRANARY_E2E_BASE_URLS
 * and their TEST_PARALLEL_INDEX (see workers.ts); the environment set here is inherited by the workers.
 * The returned function stops them and removes their data folders.
 */
// biome-ignore lint/style/noDefaultExport: Playwright loads globalSetup from the module's default export.
export default async function globalSetup(): Promise<() => Promise<void>> {
  const servers = await Promise.all(
    Array.from({ length: E2E_WORKERS }, (_, i) =>
      startServer({
        adminPassword: ADMIN_PASSWORD,
        logFile: path.join(ROOT, `e2e/test-results/server${i === 0 ? '' : `-${i}`}.log`),
      }),
    ),
  );
  process.env.GRANARY_E2E_BASE_URLS = servers.map((s) => s.baseURL).join(',');
  process.env.GRANARY_E2E_BASE_URL = servers[0]!.baseURL;
  process.env.GRANARY_E2E_ADMIN_PASSWORD = servers[0]!.adminPassword;
  return async () => {
    await Promise.all(servers.map((s) => s.stop()));
  };
}
