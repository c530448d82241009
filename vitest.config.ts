import { defineConfig } from 'vitest/config';

/**
 * A console test whose tree received a React state update after the file's last test, once the DOM
 * environment was torn down: React reads `window.event` to choose the update's priority and throws.
 * The file's tests have all passed and the tree is unmounted; nothing a user could see is at stake
 * (seen once in CI under load, never locally; the worker may already run a server file by then, so the
 * file vitest names is no guide: react-dom in the stack is, console tests alone load it). Any other
 * error outside a test still fails the run.
 */
function lateStateUpdateAfterTeardown(error: Error): boolean {
  return (
    error.name === 'ReferenceError' &&
    error.message === 'window is not defined' &&
    /react-dom/.test(error.stack ?? '') &&
    /resolveUpdatePriority/.test(error.stack ?? '')
  );
}

// One runner for every unit and API suite; each workspace is a project.
export default defineConfig({
  test: {
    projects: ['packages/contracts', 'apps/server', 'apps/server/vitest.isolated.config.ts', 'apps/console'],
    // Embedded PostgreSQL costs a few seconds and a few hundred MB per test process: keep to the cores.
    maxWorkers: 2,
    onUnhandledError: (error) => !lateStateUpdateAfterTeardown(error),
  },
});
