import { useQuery } from '@tanstack/react-query';
import { Drawer } from 'antd';
import { useSession } from '../../../shared/session/SessionProvider.tsx';
import { onboardingStateQueryOptions } from '../queries.ts';
import { closeOverlay, openOverlay, useOverlay } from '../quickSetupStore.ts';
import '../onboarding.css';
import { QuickSetupPanel } from './QuickSetupPanel.tsx';
import { SetMeUpDialog } from './SetMeUpDialog.tsx';

/**
 * The onboarding overlays the shell opens in place (spec 000 §2): the quick-setup panel as a drawer over the
 * current page (when the free-tier quick-deploy landing is not supported), and the Set Me Up dialog.
 */
export function OnboardingOverlays() {
  const overlay = useOverlay();
  const session = useSession();
  const admin = session.user?.admin ?? false;
  const state = useQuery({
    ...onboardingStateQueryOptions(),
    enabled: admin && overlay.kind === 'quickSetup',
  });
  const onSetMeUp = (repoKey: string) => openOverlay({ kind: 'setMeUp', repoKey });
  return (
    <>
      <Drawer
        title="Quick Setup"
        open={overlay.kind === 'quickSetup' && admin}
        onClose={closeOverlay}
        size="large"
        width={880}
        destroyOnHidden
        data-testid="quick-setup-drawer"
      >
        {overlay.kind === 'quickSetup' && (state.data || state.isError) && (
          <QuickSetupPanel
            start={overlay.start}
            questionnaireSent={state.data?.sent ?? false}
            onClose={closeOverlay}
            onSetMeUp={onSetMeUp}
          />
        )}
      </Drawer>
      <SetMeUpDialog
        open={overlay.kind === 'setMeUp'}
        initialRepo={overlay.kind === 'setMeUp' ? overlay.repoKey : undefined}
        onClose={closeOverlay}
      />
    </>
  );
}
