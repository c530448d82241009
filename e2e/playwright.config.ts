import path from 'node:path';
import { defineConfig, devices } from '@playwright/test';
import { E2E_WORKERS } from './support/workers.ts';

// Browser tests against the REAL server serving the built console (DESIGN.md "Tests").
// Debian's Chromium is used; nothing downloads a browser (PLAYWRIGHT_SKIP_BROWSER_DOWNLOAD=1).
process.env.PLAYWRIGHT_SKIP_BROWSER_DOWNLOAD = '1';

const root = path.resolve(import.meta.dirname, '..');

export default defineConfig({
  testDir: './console',
  outputDir: './test-results',
  globalSetup: './support/global-setup.ts',
  fullyParallel: false,
  // GRANARY_E2E_WORKERS spec files at a time, each worker against its own main server (support/global-setup.ts).
  workers: E2E_WORKERS,
  forbidOnly: Boolean(process.env.CI),
  // One retry on CI, for a browser test that lost a race with a loaded machine; the closing summary
  // names every test that needed it (flaky), so a retry never hides silently.
  retries: process.env.CI ? 1 : 0,
  timeout: 60_000,
  expect: { timeout: 10_000 },
  reporter: [['list'], ['json', { outputFile: path.join(root, '.test-reports/e2e.json') }]],
  use: {
    ...devices['Desktop Chrome'],
    viewport: { width: 1280, height: 800 },
    headless: true,
    launchOptions: {
      executablePath: process.env.CHROMIUM_PATH ?? '/usr/bin/chromium',
      // The machine's network is closed: no background traffic, no QUIC, no component updates.
      args: [
        '--no-sandbox',
        '--disable-gpu',
        '--disable-quic',
        '--no-first-run',
        '--disable-background-networking',
        '--disable-component-update',
        '--disable-sync',
      ],
    },
    trace: 'retain-on-failure',
    screenshot: 'only-on-failure',
  },
});
