import { LoadingOutlined } from '@ant-design/icons';
import { ACCESS_MESSAGES, QUICK_START_WAIT_MS } from '@granary/contracts';
import { useQuery, useQueryClient } from '@tanstack/react-query';
import { Button, Flex, Result, Skeleton, Spin, Typography } from 'antd';
import { useState } from 'react';
import { useNavigate } from 'react-router';
import { ErrorAlert } from '../../../shared/components/ErrorAlert.tsx';
import { PackageTypeIcon } from '../../../shared/components/PackageTypeIcon.tsx';
import { useIdentityTokenMutation } from '../../../shared/session/identityToken.ts';
import { useSession } from '../../../shared/session/SessionProvider.tsx';
import { packageKeys } from '../../packages/queries.ts';
import {
  baseUrlQueryOptions,
  type CreatedRepos,
  quickStartSupported,
  reposModelQueryOptions,
  useCreateQuickReposMutation,
  useStartQuickStartMutation,
} from '../queries.ts';
import type { CommandContext } from '../quickStartCommands.ts';
import { hasFlow, typeIcon, typeLabel } from '../quickStartFlows.ts';
import { ClientFlow } from './ClientFlow.tsx';
import { OneTimeCodeInput, wantsOneTimeCode } from './OneTimeCodeInput.tsx';
import { PackageTypeSelection } from './PackageTypeSelection.tsx';

type Stage =
  | { name: 'select' }
  | { name: 'creating'; type: string }
  | { name: 'created'; type: string; repos: CreatedRepos }
  | { name: 'flow'; type: 'docker' | 'npm' | 'maven' | 'pypi'; repos: CreatedRepos; ctx: CommandContext };

const wait = (ms: number) => new Promise((resolve) => setTimeout(resolve, ms));

/**
 * spec 000 §4 quick-start wizard: choose a technology, create its repositories (a forced 4 second wait), then the
 * technology's client flow (Docker, Npm, Maven, Pypi); other technologies close the wizard and open Set Me Up for
 * the created virtual repository. After a flow the user goes to /packages with the packages state re-initialised.
 */
export function QuickStartWizard({
  onClose,
  onSetMeUp,
}: {
  onClose: () => void;
  onSetMeUp: (repoKey: string) => void;
}) {
  const session = useSession();
  const user = session.user?.name ?? '';
  const navigate = useNavigate();
  const queryClient = useQueryClient();
  // spec 000 §4: initialisation records a timestamp (the npm trial version 0.0.0-{timestamp}).
  const [timestamp] = useState(() => Date.now());
  const [selected, setSelected] = useState<string | null>(null);
  const [stage, setStage] = useState<Stage>({ name: 'select' });
  const [continuing, setContinuing] = useState(false);
  // issue 12 §2: a user with an authenticator makes a token with a fresh one-time code (asked as the profile does).
  const [otp, setOtp] = useState('');
  const model = useQuery(reposModelQueryOptions());
  const create = useCreateQuickReposMutation();
  const token = useIdentityTokenMutation();
  const start = useStartQuickStartMutation();

  const onCreate = async (type: string) => {
    setStage({ name: 'creating', type });
    try {
      const [repos] = await Promise.all([create.mutateAsync(type), wait(QUICK_START_WAIT_MS)]);
      setStage({ name: 'created', type, repos });
    } catch {
      setStage({ name: 'select' });
    }
  };

  const onContinue = async (type: string, repos: CreatedRepos) => {
    const virtual = repos.virtual[0];
    if (!virtual) return;
    if (!hasFlow(type)) {
      onSetMeUp(virtual);
      return;
    }
    setContinuing(true);
    try {
      // spec 000 §8: a failed support check means unsupported (the wizard hands over to Set Me Up).
      const [supported, base] = await Promise.all([
        quickStartSupported(virtual),
        queryClient.fetchQuery(baseUrlQueryOptions()).catch(() => window.location.origin),
      ]);
      if (!supported) {
        onSetMeUp(virtual);
        return;
      }
      const issued = await token.mutateAsync({ name: user, description: `Quick start ${type}`, otp });
      start.mutate(
        { type, repoKey: virtual },
        // spec 000 §8: other quick-start errors are logged only.
        { onError: (error) => console.warn('The quick-start session did not start', error) },
      );
      setStage({
        name: 'flow',
        type,
        repos,
        ctx: { baseUrl: base, user, token: issued.reference_token, virtualRepo: virtual },
      });
    } catch {
      // the token failure is shown below (shared error display)
    } finally {
      setContinuing(false);
    }
  };

  const onDone = () => {
    void queryClient.invalidateQueries({ queryKey: packageKeys.all });
    onClose();
    navigate('/packages');
  };

  if (stage.name === 'select') {
    if (model.isError) return <ErrorAlert error={model.error} />;
    if (!model.data) return <Skeleton active />;
    return (
      <Flex vertical gap="middle">
        {create.isError && <ErrorAlert error={create.error} />}
        <PackageTypeSelection
          types={model.data}
          selected={selected}
          onSelect={setSelected}
          onCreate={(type) => void onCreate(type)}
        />
      </Flex>
    );
  }
  if (stage.name === 'creating') {
    return (
      <Flex vertical align="center" gap="middle" style={{ padding: 48 }} data-testid="quick-start-creating">
        <Spin indicator={<LoadingOutlined style={{ fontSize: 48 }} spin />} />
        <PackageTypeIcon icon={typeIcon(stage.type)} size={48} />
        <Typography.Text>Please wait while we prepare your repository</Typography.Text>
      </Flex>
    );
  }
  if (stage.name === 'created') {
    const label = typeLabel(stage.type);
    // Asked up front when the user data says so, or once the server said a code is needed.
    const askOtp =
      hasFlow(stage.type) && (session.user?.mfaEnrolled === true || wantsOneTimeCode(token.error));
    return (
      <Flex vertical gap="middle">
        {token.isError && (
          <ErrorAlert
            title={ACCESS_MESSAGES.identityTokenFailure}
            description={askOtp ? token.error.message : undefined}
          />
        )}
        <Result
          icon={<PackageTypeIcon icon={typeIcon(stage.type)} size={56} />}
          title={`${label} Repository was created successfully!`}
          subTitle={`Next, configure your ${label} client to work with your repository and run some basic commands.`}
          extra={
            <Flex gap="small" justify="center" wrap>
              {askOtp && (
                <OneTimeCodeInput
                  value={otp}
                  onChange={setOtp}
                  onEnter={() => void onContinue(stage.type, stage.repos)}
                />
              )}
              <Button
                type="primary"
                loading={continuing}
                disabled={askOtp && !otp.trim()}
                onClick={() => void onContinue(stage.type, stage.repos)}
                data-testid="quick-start-continue"
              >
                Continue
              </Button>
            </Flex>
          }
        />
        <Typography.Text type="secondary" style={{ textAlign: 'center' }}>
          Created: {[...stage.repos.local, ...stage.repos.remote, ...stage.repos.virtual].join(', ')}
        </Typography.Text>
      </Flex>
    );
  }
  return (
    <ClientFlow
      key={stage.type}
      type={stage.type}
      repos={stage.repos}
      ctx={stage.ctx}
      timestamp={timestamp}
      onDone={onDone}
    />
  );
}
