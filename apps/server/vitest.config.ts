import { configDefaults, defineConfig } from 'vitest/config';

// Real-client suites (`*.client.test.ts`: npm, pip, mvn, skopeo against real server processes with
// their embedded databases) run once; the PostgreSQL rerun of CI (GRANARY_TEST_DATABASE_URL) skips them.
const clientSuites = process.env.GRANARY_TEST_DATABASE_URL ? ['**/*.client.test.ts'] : [];

export default defineConfig({
  test: {
    name: 'server',
    include: ['src/**/*.test.ts'],
    exclude: [...configDefaults.exclude, ...clientSuites],
    pool: 'forks',
    testTimeout: 60_000,
    hookTimeout: 120_000,
  },
});
