import { defineConfig } from 'vitest/config';
import { ISOLATED_SUITES } from './vitest.config.ts';

// The server suites that need a process to themselves (see ISOLATED_SUITES).
export default defineConfig({
  test: {
    name: 'server-isolated',
    include: ISOLATED_SUITES,
    pool: 'forks',
    isolate: true,
    testTimeout: 60_000,
    hookTimeout: 120_000,
  },
});
