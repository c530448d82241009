import { defineConfig } from 'vitest/config';

// One runner for every unit and API suite; each workspace is a project.
export default defineConfig({
  test: {
    projects: ['packages/contracts', 'apps/server', 'apps/console'],
  },
});
