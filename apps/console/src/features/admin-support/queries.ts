import {
  SUPPORT_THREAD_DUMP_MAX_COUNT,
  SUPPORT_THREAD_DUMP_MAX_INTERVAL_MS,
  type SupportBundle,
  type SupportBundleRequest,
  supportBundleSchema,
} from '@granary/contracts';
import { queryOptions, useMutation } from '@tanstack/react-query';
import { z } from 'zod';
import { api, consoleApiUrl } from '../../shared/api/index.ts';

/**
 * spec 001 §7 "Support bundles": `ui/userSupport/listBundles`, `generateBundle`, `deleteBundle/{id}`, and the
 * download through a browser window. spec 001 §8: support bundle failures return false silently — these helpers
 * never throw and never show a notification; the page shows what the list says.
 */
const SUPPORT = 'ui/userSupport';
const enc = encodeURIComponent;

export const supportKeys = { list: ['admin', 'support', 'bundles'] as const };

/** The bundles, newest first; `false` when the call failed (§8, silently). */
export const bundlesQueryOptions = () =>
  queryOptions({
    queryKey: supportKeys.list,
    queryFn: async ({ signal }): Promise<SupportBundle[] | false> =>
      api.get(`${SUPPORT}/listBundles`, z.array(supportBundleSchema), { signal }).catch(() => false as const),
    // A bundle still generating is looked at again until it is done.
    refetchInterval: (query) =>
      Array.isArray(query.state.data) && query.state.data.some((b) => b.status === 'in progress')
        ? 2000
        : false,
  });

/** The form as the page holds it. */
export interface BundleForm {
  name: string;
  description?: string;
  logs: boolean;
  startDate?: string;
  endDate?: string;
  configuration: boolean;
  system: boolean;
  threadDump: boolean;
  count?: string | number | null;
  interval?: string | number | null;
}

/** spec 001 §5: thread dump count and interval are converted to integers (within the server's caps). */
export function toInteger(value: string | number | null | undefined, max: number): number {
  const n = typeof value === 'number' ? Math.trunc(value) : Number.parseInt(String(value ?? ''), 10);
  if (!Number.isFinite(n) || n < 0) return 0;
  return Math.min(n, max);
}

/** The `generateBundle` body of a form. */
export function toBundleRequest(form: BundleForm): SupportBundleRequest {
  return {
    name: form.name.trim(),
    description: form.description?.trim() ?? '',
    parameters: {
      configuration: form.configuration,
      system: form.system,
      logs: {
        include: form.logs,
        ...(form.logs && form.startDate ? { start_date: form.startDate } : {}),
        ...(form.logs && form.endDate ? { end_date: form.endDate } : {}),
      },
      thread_dump: form.threadDump
        ? {
            count: toInteger(form.count, SUPPORT_THREAD_DUMP_MAX_COUNT),
            interval: toInteger(form.interval, SUPPORT_THREAD_DUMP_MAX_INTERVAL_MS),
          }
        : { count: 0, interval: 0 },
    },
  };
}

/** Resolves true once the bundle is queued, false on any failure (§8: silently). */
export function useGenerateBundleMutation() {
  return useMutation({
    mutationFn: (request: SupportBundleRequest) =>
      api.post(`${SUPPORT}/generateBundle`, request).then(
        () => true,
        () => false,
      ),
  });
}

/** Resolves true once deleted, false on any failure (§8: silently). */
export function useDeleteBundleMutation() {
  return useMutation({
    mutationFn: (id: string) =>
      api.delete(`${SUPPORT}/deleteBundle/${enc(id)}`).then(
        () => true,
        () => false,
      ),
  });
}

/** The download opens in a browser window (spec 001 §7); the session cookie authorises it. */
export const downloadUrl = (id: string) => consoleApiUrl(`${SUPPORT}/downloadBundle/${enc(id)}`);
