import { useSyncExternalStore } from 'react';

/**
 * Which onboarding overlay the shell shows in place (spec 000 §2: /quick-setup is pushed only when the free-tier
 * quick-deploy landing feature is supported, otherwise the quick-setup panel opens in place; spec 000 §2 user menu
 * Set Me Up). Kept tiny and free of imports: the shell loads it eagerly, the overlays themselves are lazy.
 */
export type OnboardingOverlay =
  | { kind: 'none' }
  /** `questionnaire`: the onboarding questions first (Getting Started); `wizard`: straight to the package types (relaunch). */
  | { kind: 'quickSetup'; start: 'questionnaire' | 'wizard' }
  | { kind: 'setMeUp'; repoKey?: string };

let current: OnboardingOverlay = { kind: 'none' };
const listeners = new Set<() => void>();

export function openOverlay(next: OnboardingOverlay): void {
  current = next;
  for (const listener of listeners) listener();
}

export const closeOverlay = () => openOverlay({ kind: 'none' });

function subscribe(listener: () => void) {
  listeners.add(listener);
  return () => listeners.delete(listener);
}

export function useOverlay(): OnboardingOverlay {
  return useSyncExternalStore(
    subscribe,
    () => current,
    () => current,
  );
}
