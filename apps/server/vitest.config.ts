import { configDefaults, defineConfig } from 'vitest/config';

// Real-client suites (`*.client.test.ts`: npm, pip, mvn, skopeo against real server processes with
// their embedded databases) run once; the PostgreSQL rerun of CI (GRANARY_TEST_DATABASE_URL) skips them.
const clientSuites = process.env.GRANARY_TEST_DATABASE_URL ? ['**/*.client.test.ts'] : [];

/**
 * Suites that measure the process itself (heap growth while streaming 128 MiB) and so need a process
 * of their own: they run in the `server-isolated` project (vitest.isolated.config.ts).
 */
export const ISOLATED_SUITES = [
  'src/platform/blobs/filesystem-blob-store.test.ts',
  'src/platform/blobs/s3-blob-store.test.ts',
];

export default defineConfig({
  test: {
    name: 'server',
    include: ['src/**/*.test.ts'],
    exclude: [...configDefaults.exclude, ...clientSuites, ...ISOLATED_SUITES],
    pool: 'forks',
    // Files share their worker process: the migrated PGlite template (test-app.ts) boots and the
    // modules load once per worker instead of once per file — about 4 s of a file's 5 s set-up. No
    // suite mocks modules or leaves environment changes behind (the few that set variables restore them).
    isolate: false,
    testTimeout: 60_000,
    hookTimeout: 120_000,
  },
});
