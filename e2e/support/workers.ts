/**
 * How many Playwright workers run spec files side by side (GRANARY_E2E_WORKERS, default 1). Each worker
 * has a main server of its own (global-setup.ts). Measured on CI's 2-core machine, two workers finished the
 * browser stage no sooner (the tests are CPU-bound: Chromium, the servers and the real clients) and pushed
 * some tests past their timeouts, so one is the default; a machine with more cores can raise it.
 */
export const E2E_WORKERS = Math.max(1, Number(process.env.GRANARY_E2E_WORKERS ?? 1) || 1);

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
