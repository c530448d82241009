import { packageTypeInfoSchema, versionSchema } from '@granary/contracts';
import { queryOptions } from '@tanstack/react-query';
import { z } from 'zod';
import { api } from '../../shared/api/index.ts';

/** spec 000 §7 start-up: `GET system/version` → `{version, revision}`; it changes only when the server is upgraded. */
export const versionQueryOptions = () =>
  queryOptions({
    queryKey: ['system', 'version'],
    queryFn: ({ signal }) => api.get('system/version', versionSchema, { signal }),
    staleTime: 5 * 60_000,
  });

/** `GET ui/packagetypes`: the package formats this server runs (for the Learning Center's guides; signed-in only). */
export const packageTypesQueryOptions = () =>
  queryOptions({
    queryKey: ['system', 'packageTypes'],
    queryFn: ({ signal }) => api.get('ui/packagetypes', z.array(packageTypeInfoSchema), { signal }),
    staleTime: 5 * 60_000,
  });
