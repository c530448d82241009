import { useQuery } from '@tanstack/react-query';
import { Card, Result, Skeleton } from 'antd';
import { useNavigate, useSearchParams } from 'react-router';
import { useSession } from '../../../shared/session/SessionProvider.tsx';
import { QuickSetupPanel } from '../components/QuickSetupPanel.tsx';
import '../onboarding.css';
import { onboardingStateQueryOptions } from '../queries.ts';
import { openOverlay } from '../quickSetupStore.ts';

/**
 * spec 000 §2 /quick-setup, the onboarding page (pushed when the free-tier quick-deploy landing is supported, or
 * opened directly): the questionnaire, then the quick-start wizard. `?start=wizard` relaunches the wizard itself
 * (the user menu's Quick Repository Creation). spec 000 §6: administrators only (the server checks every call).
 */
export function QuickSetupPage() {
  const session = useSession();
  const navigate = useNavigate();
  const [params] = useSearchParams();
  const admin = session.user?.admin ?? false;
  const state = useQuery({ ...onboardingStateQueryOptions(), enabled: admin });
  if (!admin)
    return (
      <Result
        status="403"
        title="Quick setup is for administrators"
        subTitle="Ask an administrator to create repositories for you."
      />
    );
  return (
    <Card variant="borderless" className="quick-setup-page">
      {state.data || state.isError ? (
        <QuickSetupPanel
          start={params.get('start') === 'wizard' ? 'wizard' : 'questionnaire'}
          questionnaireSent={state.data?.sent ?? false}
          onClose={() => navigate('/')}
          onSetMeUp={(repoKey) => {
            navigate('/');
            openOverlay({ kind: 'setMeUp', repoKey });
          }}
        />
      ) : (
        <Skeleton active />
      )}
    </Card>
  );
}
