import type { ServiceNode, ServiceStatus } from '@granary/contracts';
import { describe, expect, it } from 'vitest';
import {
  availableProducts,
  initialServiceStatusState,
  SERVICE_CHANGED_INITIAL,
  type ServiceStatusAction,
  type ServiceStatusState,
  serviceStatusReducer,
} from './serviceStatusState.ts';

const node = (id: string, status: 'Online' | 'Offline' = 'Online'): ServiceNode => ({
  node_id: id,
  service_id: 'granary',
  status,
  state: status === 'Online' ? 'HEALTHY' : 'UNHEALTHY',
  host_name: `${id}.internal`,
  url: `http://${id}.internal:8080`,
  version: '1.0.0',
  start_time: '2025-01-01T00:00:00.000Z',
  last_heartbeat: '2025-01-01T01:00:00.000Z',
  uptime: 3600,
  current: id === 'a',
  micro_services: {},
});

const status: ServiceStatus = {
  services: {
    granary: { state: 'HEALTHY', nodes: [node('a'), node('b', 'Offline')] },
    scanner: { state: 'UNHEALTHY', nodes: [node('s1', 'Offline')] },
    distribution: { state: 'HEALTHY', nodes: [node('d1')] },
  },
};

const run = (...actions: ServiceStatusAction[]): ServiceStatusState =>
  actions.reduce(serviceStatusReducer, initialServiceStatusState);

describe('spec 001 §4 service status state', () => {
  it('spec 001 §3: starts with the service-changed flag "initial", the repository service selected and nothing loaded', () => {
    expect(initialServiceStatusState).toEqual({
      productList: [],
      nodeList: [],
      selectedProduct: 'granary',
      selectedNode: null,
      status: null,
      serviceChanged: 'initial',
    });
  });

  it('spec 001 §4: only HEALTHY services count as available; only those and their nodes are listed', () => {
    expect(availableProducts(status)).toEqual(['distribution', 'granary']);
    const state = run({ type: 'statusLoaded', status });
    expect(state.productList).toEqual(['distribution', 'granary']);
    expect(state.productList).not.toContain('scanner');
    expect(state.nodeList.map((n) => n.node_id)).toEqual(['a', 'b']);
  });

  it('spec 001 §4: a selected service that turns unhealthy lists no nodes', () => {
    const sick: ServiceStatus = {
      services: { granary: { state: 'UNHEALTHY', nodes: [node('a', 'Offline')] } },
    };
    const state = run(
      { type: 'statusLoaded', status },
      { type: 'selectNode', nodeId: 'a' },
      { type: 'statusLoaded', status: sick },
    );
    expect(state.productList).toEqual([]);
    expect(state.nodeList).toEqual([]);
    expect(state.selectedNode).toBeNull();
  });

  it('spec 001 §4: the selected product can change only after the service-changed flag has been set', () => {
    const loaded = run({ type: 'statusLoaded', status });
    const refused = serviceStatusReducer(loaded, { type: 'selectProduct', product: 'distribution' });
    expect(refused.selectedProduct).toBe('granary');
    expect(refused.serviceChanged).toBe(SERVICE_CHANGED_INITIAL);

    const changed = run(
      { type: 'statusLoaded', status },
      { type: 'serviceChanged' },
      { type: 'selectProduct', product: 'distribution' },
    );
    expect(changed.serviceChanged).toBe('changed');
    expect(changed.selectedProduct).toBe('distribution');
    expect(changed.nodeList.map((n) => n.node_id)).toEqual(['d1']);
    // An unavailable (unhealthy) service is never selected.
    expect(serviceStatusReducer(changed, { type: 'selectProduct', product: 'scanner' }).selectedProduct).toBe(
      'distribution',
    );
  });

  it('spec 001 §4: reset clears lists, selections and status, and restores the flag to initial', () => {
    const busy = run(
      { type: 'statusLoaded', status },
      { type: 'serviceChanged' },
      { type: 'selectProduct', product: 'distribution' },
      { type: 'selectNode', nodeId: 'd1' },
    );
    expect(busy.selectedNode).toBe('d1');
    expect(serviceStatusReducer(busy, { type: 'reset' })).toEqual(initialServiceStatusState);
  });
});
