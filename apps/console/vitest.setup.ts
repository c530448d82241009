import { cleanup, configure } from '@testing-library/react';
import { afterAll, afterEach, beforeAll } from 'vitest';
import { server } from './src/shared/test/server.ts';

// The whole suite shares two cores with the server suites (PGlite boots) and other work: give `findBy…` time.
configure({ asyncUtilTimeout: 10_000 });

// The network boundary: every request a test makes must be answered by an MSW handler.
beforeAll(() => server.listen({ onUnhandledRequest: 'error' }));
afterEach(() => {
  cleanup();
  server.resetHandlers();
});
afterAll(() => server.close());
