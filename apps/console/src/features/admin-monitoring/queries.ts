import {
  GRANARY_SERVICE_ID,
  haStatusSchema,
  NODE_HEARTBEAT_INTERVAL_MS,
  serviceStatusSchema,
} from '@granary/contracts';
import { queryOptions, useMutation, useQueryClient } from '@tanstack/react-query';
import { api } from '../../shared/api/index.ts';

/**
 * spec 001 §7 "Service status and logs": `GET /system/status/ha`, the service status
 * (`system/status/services`) and `DELETE /access/api/v1/topology/{serviceId}/{nodeId}`, under the console API
 * prefix. Polled at the heartbeat interval, so a node going Offline shows without a reload.
 */
const enc = encodeURIComponent;

export const monitoringKeys = {
  services: ['admin', 'monitoring', 'services'] as const,
  ha: ['admin', 'monitoring', 'ha'] as const,
};

export const serviceStatusQueryOptions = () =>
  queryOptions({
    queryKey: monitoringKeys.services,
    queryFn: ({ signal }) => api.get('system/status/services', serviceStatusSchema, { signal }),
    refetchInterval: NODE_HEARTBEAT_INTERVAL_MS,
  });

export const haStatusQueryOptions = () =>
  queryOptions({
    queryKey: monitoringKeys.ha,
    queryFn: ({ signal }) => api.get('system/status/ha', haStatusSchema, { signal }),
    refetchInterval: NODE_HEARTBEAT_INTERVAL_MS,
  });

/** Removes a node silent for at least a day; the server refuses an online or recently seen one (409, its message). */
export function useRemoveNodeMutation() {
  const queryClient = useQueryClient();
  return useMutation({
    mutationFn: ({ nodeId, serviceId = GRANARY_SERVICE_ID }: { nodeId: string; serviceId?: string }) =>
      api.delete(`access/api/v1/topology/${enc(serviceId)}/${enc(nodeId)}`),
    onSettled: () => queryClient.invalidateQueries({ queryKey: ['admin', 'monitoring'] }),
  });
}
