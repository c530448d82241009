/**
 * How many Playwright workers run spec files side by side (GRANARY_E2E_WORKERS, default 2: the tests
 * spend most of their time waiting on Chromium, the server and real clients, so two fill a 2-core
 * machine better than one). Each worker has a main server of its own (global-setup.ts).
 */
export const E2E_WORKERS = Math.max(1, Number(process.env.GRANARY_E2E_WORKERS ?? 2) || 1);

/**
 * In a worker process: point GRANARY_E2E_BASE_URL at this worker's own server. Playwright numbers the
 * workers running at once 0…workers-1 in TEST_PARALLEL_INDEX (a restarted worker keeps its number).
 */
export function selectWorkerServer(): void {
  const urls = process.env.GRANARY_E2E_BASE_URLS?.split(',');
  const index = Number(process.env.TEST_PARALLEL_INDEX ?? 0);
  const url = urls?.[index % urls.length];
  if (url) process.env.GRANARY_E2E_BASE_URL = url;
}
