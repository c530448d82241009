import { integrationRepositoryScanSchema } from '@granary/contracts';
import { queryOptions } from '@tanstack/react-query';
import { z } from 'zod';
import { api } from '../../shared/api/index.ts';
import { securityKeys } from './queries.ts';

/**
 * `GET /ui/api/v1/integrations/scans` (admin; issue 18): the latest scan of every git repository chosen for
 * scanning on an integration, shown in Security & Compliance's "Source Repositories" tab.
 */
export const sourceRepoScansQueryOptions = () =>
  queryOptions({
    queryKey: [...securityKeys.all, 'sourceRepoScans'] as const,
    queryFn: ({ signal }) =>
      api.get('integrations/scans', z.array(integrationRepositoryScanSchema), { signal }),
  });
