import { QueryClient } from '@tanstack/react-query';
import { isApiError } from '../shared/api/index.ts';

const MAX_RETRIES = 2;

/**
 * Retry only when there was no usable answer (network failure, gateway or unavailable): a 4xx or a 500 with an
 * error envelope is the server's considered answer and asking again will not change it.
 */
export function shouldRetry(failureCount: number, error: unknown): boolean {
  if (failureCount >= MAX_RETRIES) return false;
  if (!isApiError(error)) return false;
  return error.status === 0 || error.status === 502 || error.status === 503 || error.status === 504;
}

export function createQueryClient(): QueryClient {
  return new QueryClient({
    defaultOptions: {
      queries: { retry: shouldRetry, refetchOnWindowFocus: false },
      mutations: { retry: false },
    },
  });
}
