import { useQuery } from '@tanstack/react-query';
import { useEffect, useRef } from 'react';
import { useSession } from '../../shared/session/SessionProvider.tsx';
import {
  gettingStartedQueryOptions,
  reposStatesQueryOptions,
  useClaimGettingStartedMutation,
} from './queries.ts';

/** What the start-up knows when it decides whether onboarding opens on its own. */
export interface LaunchInputs {
  /** spec 000 §6: quick setup and the wizard are for administrators only. */
  admin: boolean;
  /** spec 000 §4: quick setup is visible only if the quick-setup feature is supported. */
  quickSetup: boolean;
  /** spec 000 §4 start-up step 3: the cloud trial flag (set once the configuration items are in). */
  cloudTrial: boolean;
  /** The free-tier flavour (GRANARY_FLAVOUR freeTier). */
  freeTier: boolean;
  /** The free-tier quick-deploy landing feature (spec 000 §2: /quick-setup is pushed only then). */
  quickDeployLanding: boolean;
}

export interface LaunchPlan {
  /** The user-menu action it amounts to: the getting-started questionnaire first, or the wizard itself. */
  action: 'gettingStarted' | 'quickRepositoryCreation';
  /** spec 000 §4: the cloud trial's wizard initialises only while the instance has only default repositories. */
  needsOnlyDefaultRepositories: boolean;
}

/**
 * spec 000 §4 onboarding and quick-start wizard, the start-up's decision (the relaunch from the user menu is not
 * decided here, it always opens):
 * - the quick-start wizard initialises without relaunch only for an administrator of a cloud trial whose instance
 *   has only default repositories;
 * - administrators on the free tier see the getting-started wizard once;
 * - a first-login quick deploy (the free-tier quick-deploy landing) redirects to /quick-setup.
 * "Once" and "first login" are the server's per-user flag (`ui/onboarding/gettingStarted`), checked by the hook.
 */
export function launchPlan(i: LaunchInputs): LaunchPlan | null {
  if (!i.admin || !i.quickSetup) return null;
  if (i.cloudTrial) return { action: 'quickRepositoryCreation', needsOnlyDefaultRepositories: true };
  if (i.freeTier || i.quickDeployLanding)
    return { action: 'gettingStarted', needsOnlyDefaultRepositories: false };
  return null;
}

/**
 * Opens onboarding on its own once the start-up is done (spec 000 §4 step 3: "initialise the quick-start wizard
 * without relaunch"), when `launchPlan` says so and the server has not shown it to this administrator yet. The
 * showing is claimed on the server first, so two tabs, browsers or nodes never both open it. `onLaunch` opens it.
 */
export function useOnboardingAutoLaunch(onLaunch: (action: LaunchPlan['action']) => void): void {
  const session = useSession();
  const plan =
    session.loading || session.failed || !session.user
      ? null
      : launchPlan({
          admin: session.user.admin,
          quickSetup: session.features.quickSetup,
          cloudTrial: session.cloudTrial,
          freeTier: session.shell.flavour.freeTier,
          quickDeployLanding: session.features.quickDeployLanding,
        });
  const seen = useQuery({ ...gettingStartedQueryOptions(), enabled: plan !== null });
  const unseen = seen.data?.seen === false;
  const repos = useQuery({
    ...reposStatesQueryOptions(),
    enabled: unseen && plan?.needsOnlyDefaultRepositories === true,
  });
  const claim = useClaimGettingStartedMutation();
  const claimed = useRef(false);
  const ready =
    plan !== null &&
    unseen &&
    (!plan.needsOnlyDefaultRepositories || repos.data?.onlyDefaultRepositories === true);
  const action = plan?.action;
  const { mutate } = claim;
  useEffect(() => {
    if (!ready || !action || claimed.current) return;
    claimed.current = true;
    mutate(undefined, {
      onSuccess: (answer) => {
        if (answer.claimed) onLaunch(action);
      },
      onError: (error) => console.warn('The getting-started flag could not be recorded', error),
    });
  }, [ready, action, onLaunch, mutate]);
}
