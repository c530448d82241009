import { GRANARY_SERVICE, HEALTHY_STATE, type ServiceNode, type ServiceStatus } from '@granary/contracts';
import { useReducer } from 'react';

/** spec 001 §3: the service-changed flag starts as 'initial'. */
export const SERVICE_CHANGED_INITIAL = 'initial';
export type ServiceChangedFlag = typeof SERVICE_CHANGED_INITIAL | 'changed';

/** spec 001 §3 viewer state, for the service status screen: products, their nodes, the selections, the flag. */
export interface ServiceStatusState {
  /** Only HEALTHY services (spec 001 §4: only they count as available). */
  productList: string[];
  /** The nodes of the selected product, when it is available. */
  nodeList: ServiceNode[];
  selectedProduct: string;
  selectedNode: string | null;
  status: ServiceStatus | null;
  serviceChanged: ServiceChangedFlag;
}

export type ServiceStatusAction =
  | { type: 'statusLoaded'; status: ServiceStatus }
  /** The user is about to pick another service: sets the flag, so the next selectProduct applies. */
  | { type: 'serviceChanged' }
  | { type: 'selectProduct'; product: string }
  | { type: 'selectNode'; nodeId: string | null }
  | { type: 'reset' };

/** The service selected first (spec 001 §3: the repository service). */
export const DEFAULT_PRODUCT = GRANARY_SERVICE;

export const initialServiceStatusState: ServiceStatusState = {
  productList: [],
  nodeList: [],
  selectedProduct: DEFAULT_PRODUCT,
  selectedNode: null,
  status: null,
  serviceChanged: SERVICE_CHANGED_INITIAL,
};

/** spec 001 §4: only HEALTHY services count as available. */
export function availableProducts(status: ServiceStatus | null): string[] {
  if (!status) return [];
  return Object.entries(status.services)
    .filter(([, service]) => service.state === HEALTHY_STATE)
    .map(([name]) => name)
    .sort((a, b) => a.localeCompare(b));
}

function nodesOf(status: ServiceStatus | null, product: string, available: string[]): ServiceNode[] {
  if (!status || !available.includes(product)) return [];
  return status.services[product]?.nodes ?? [];
}

/**
 * spec 001 §4 "Service status": only HEALTHY services count as available, and only those and their nodes are
 * listed; the selected product can change only after the service-changed flag has been set; reset clears the
 * lists, the selections and the status, and restores the flag to 'initial'.
 */
export function serviceStatusReducer(
  state: ServiceStatusState,
  action: ServiceStatusAction,
): ServiceStatusState {
  switch (action.type) {
    case 'statusLoaded': {
      const productList = availableProducts(action.status);
      const nodeList = nodesOf(action.status, state.selectedProduct, productList);
      const selectedNode =
        state.selectedNode && nodeList.some((n) => n.node_id === state.selectedNode)
          ? state.selectedNode
          : null;
      return { ...state, status: action.status, productList, nodeList, selectedNode };
    }
    case 'serviceChanged':
      return { ...state, serviceChanged: 'changed' };
    case 'selectProduct': {
      if (state.serviceChanged === SERVICE_CHANGED_INITIAL) return state;
      if (!state.productList.includes(action.product)) return state;
      return {
        ...state,
        selectedProduct: action.product,
        nodeList: nodesOf(state.status, action.product, state.productList),
        selectedNode: null,
      };
    }
    case 'selectNode':
      if (action.nodeId !== null && !state.nodeList.some((n) => n.node_id === action.nodeId)) return state;
      return { ...state, selectedNode: action.nodeId };
    case 'reset':
      return { ...initialServiceStatusState };
  }
}

/** The service status screen's state (spec 001 §3, §4) as a reducer. */
export function useServiceStatusState() {
  return useReducer(serviceStatusReducer, initialServiceStatusState);
}
