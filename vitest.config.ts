import { defineConfig } from 'vitest/config';

// One runner for every unit and API suite; each workspace is a project.
export default defineConfig({
  test: {
    projects: ['packages/contracts', 'apps/server', 'apps/server/vitest.isolated.config.ts', 'apps/console'],
    // Embedded PostgreSQL costs a few seconds and a few hundred MB per test process: keep to the cores.
    maxWorkers: 2,
  },
});
