import path from 'node:path';
import { ROOT, startServer } from './server.ts';

export const ADMIN_PASSWORD = 'e2e-Admin-Passw0rd!';

/**
 * Starts one real server for the whole run; tests reach it through GRANARY_E2E_BASE_URL (the environment set
 * here is inherited by the workers). The returned function stops it and removes its GRANARY_HOME.
 */
// biome-ignore lint/style/noDefaultExport: Playwright loads globalSetup from the module's default export.
export default async function globalSetup(): Promise<() => Promise<void>> {
  const server = await startServer({
    adminPassword: ADMIN_PASSWORD,
    logFile: path.join(ROOT, 'e2e/test-results/server.log'),
  });
  process.env.GRANARY_E2E_BASE_URL = server.baseURL;
  process.env.GRANARY_E2E_ADMIN_PASSWORD = server.adminPassword;
  return () => server.stop();
}
