import { lazy, Suspense, useCallback, useState } from 'react';
import { type NavigateFunction, useNavigate } from 'react-router';
import { useSession } from '../../shared/session/SessionProvider.tsx';
import { type LaunchPlan, useOnboardingAutoLaunch } from './autoLaunch.ts';
import { openOverlay, useOverlay } from './quickSetupStore.ts';

const OnboardingOverlays = lazy(() =>
  import('./components/OnboardingOverlays.tsx').then((m) => ({ default: m.OnboardingOverlays })),
);

/**
 * Where the shell's onboarding overlays live: nothing is loaded until one first opens (the feature is a chunk of
 * its own), then it stays mounted so closing animates.
 */
export function OnboardingHost() {
  const overlay = useOverlay();
  const navigate = useNavigate();
  const landing = useSession().features.quickDeployLanding;
  // spec 000 §4: onboarding opens on its own once after start-up when its rules say so (autoLaunch.ts).
  useOnboardingAutoLaunch(
    useCallback(
      (action: LaunchPlan['action']) => runOnboardingAction(action, landing, navigate),
      [landing, navigate],
    ),
  );
  const [loaded, setLoaded] = useState(false);
  if (!loaded && overlay.kind !== 'none') setLoaded(true);
  if (!loaded && overlay.kind === 'none') return null;
  return (
    <Suspense fallback={null}>
      <OnboardingOverlays />
    </Suspense>
  );
}

/**
 * spec 000 §2 user menu actions: Getting Started and Quick Repository Creation (the relaunch) push /quick-setup
 * when the free-tier quick-deploy landing feature is supported, otherwise open the quick-setup panel in place;
 * Set Me Up opens its dialog.
 */
export function runOnboardingAction(
  action: 'gettingStarted' | 'quickRepositoryCreation' | 'setMeUp',
  quickDeployLanding: boolean,
  navigate: NavigateFunction,
): void {
  if (action === 'setMeUp') {
    openOverlay({ kind: 'setMeUp' });
    return;
  }
  const start = action === 'gettingStarted' ? 'questionnaire' : 'wizard';
  if (quickDeployLanding) navigate(start === 'wizard' ? '/quick-setup?start=wizard' : '/quick-setup');
  else openOverlay({ kind: 'quickSetup', start });
}
