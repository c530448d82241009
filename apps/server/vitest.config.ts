import { defineConfig } from 'vitest/config';

export default defineConfig({
  test: {
    name: 'server',
    include: ['src/**/*.test.ts'],
    pool: 'forks',
    testTimeout: 60_000,
    hookTimeout: 120_000,
    // Embedded PostgreSQL costs ~4 s and a few hundred MB per process: keep the worker count to the cores.
    maxWorkers: 2,
  },
});
