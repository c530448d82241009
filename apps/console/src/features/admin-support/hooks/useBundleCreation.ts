import {
  SUPPORT_BUNDLE_PLACEHOLDER_CLEANUP_MS,
  type SupportBundle,
  type SupportBundleService,
} from '@granary/contracts';
import { useCallback, useEffect, useReducer } from 'react';

/**
 * spec 001 §4 "Support bundle creation": a placeholder with in-progress status appears at once; a creation
 * counter per service goes up, then down; when none remain, after 3 seconds (§9) the placeholders are removed and
 * the list is reloaded.
 */
export interface BundleCreationState {
  placeholders: SupportBundle[];
  counters: Partial<Record<SupportBundleService, number>>;
  /** Increases with each placeholder (their ids). */
  seq: number;
}

export type BundleCreationAction =
  | { type: 'start'; service: SupportBundleService; name: string; description: string; at: string }
  | { type: 'finish'; service: SupportBundleService }
  | { type: 'clear' };

export const initialBundleCreation: BundleCreationState = { placeholders: [], counters: {}, seq: 0 };

export function bundleCreationReducer(
  state: BundleCreationState,
  action: BundleCreationAction,
): BundleCreationState {
  switch (action.type) {
    case 'start': {
      const seq = state.seq + 1;
      return {
        seq,
        counters: { ...state.counters, [action.service]: (state.counters[action.service] ?? 0) + 1 },
        placeholders: [
          {
            id: `placeholder-${seq}`,
            name: action.name,
            description: action.description,
            create_date: action.at,
            status: 'in progress',
            parameters: null,
            size: null,
            node_id: null,
          },
          ...state.placeholders,
        ],
      };
    }
    case 'finish':
      return {
        ...state,
        counters: {
          ...state.counters,
          [action.service]: Math.max(0, (state.counters[action.service] ?? 0) - 1),
        },
      };
    case 'clear':
      return { ...state, placeholders: [] };
  }
}

/** Creations still running, over every service. */
export const creationsRunning = (state: BundleCreationState) =>
  Object.values(state.counters).reduce((sum, n) => sum + (n ?? 0), 0);

/** The reducer with the §4 clean-up: 3000 ms after the last creation finished, placeholders go and `onReload` runs. */
export function useBundleCreation(onReload: () => void) {
  const [state, dispatch] = useReducer(bundleCreationReducer, initialBundleCreation);
  const running = creationsRunning(state);
  const waiting = state.placeholders.length > 0;
  useEffect(() => {
    if (running > 0 || !waiting) return;
    const timer = setTimeout(() => {
      dispatch({ type: 'clear' });
      onReload();
    }, SUPPORT_BUNDLE_PLACEHOLDER_CLEANUP_MS);
    return () => clearTimeout(timer);
  }, [running, waiting, onReload]);
  const start = useCallback(
    (service: SupportBundleService, name: string, description: string) =>
      dispatch({ type: 'start', service, name, description, at: new Date().toISOString() }),
    [],
  );
  const finish = useCallback((service: SupportBundleService) => dispatch({ type: 'finish', service }), []);
  return { state, start, finish };
}
