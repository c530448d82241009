import { useMutation, useQuery } from '@tanstack/react-query';
import { Alert, Button, Card, Descriptions, Flex, Result, Skeleton, Tag, Typography } from 'antd';
import { useSearchParams } from 'react-router';
import { ErrorAlert } from '../../../shared/components/ErrorAlert.tsx';
import { useSession } from '../../../shared/session/SessionProvider.tsx';
import { consentQueryOptions, useConsentDecisionMutation } from '../applicationQueries.ts';

/** What each scope means to the user deciding. */
const SCOPE_TEXT: Record<string, string> = {
  'applied-permissions/user': 'Act as you, with your current permissions (never administration)',
  'granary/read-only': 'Read only: download and browse what you may read',
};

/** Sends the browser to the application (the authorization server's redirect with the code or the error). */
const go = (url: string) => window.location.assign(url);

/**
 * issue 18 OAuth consent (the route the authorization server sends the browser to, `/ui/oauth/consent?request=…`,
 * packages/contracts/src/applications.ts `OAUTH_CONSENT_ROUTE`): which application asks, for which scopes, on whose
 * behalf; Allow answers the code to the application's callback, Deny answers `access_denied`.
 */
export function ConsentPage() {
  const [params] = useSearchParams();
  const requestId = params.get('request') ?? '';
  const user = useSession().user;
  const consent = useQuery({ ...consentQueryOptions(requestId), enabled: requestId !== '' });
  const decide = useConsentDecisionMutation();
  const redirect = useMutation({ mutationFn: async (url: string) => go(url) });

  if (!requestId)
    return (
      <Result
        status="warning"
        title="No authorization request"
        subTitle="Start again from the application."
      />
    );
  if (consent.isPending) return <Skeleton active />;
  if (consent.isError)
    return (
      <Card variant="borderless" style={{ maxWidth: 640, margin: '24px auto' }}>
        <ErrorAlert title="This authorization request cannot be shown" error={consent.error} />
        <Typography.Paragraph type="secondary" style={{ marginTop: 16 }}>
          It may have expired or been answered already. Start again from the application.
        </Typography.Paragraph>
      </Card>
    );
  const c = consent.data;
  const username = user?.name ?? c.username;
  const answer = (approve: boolean) =>
    decide.mutate(
      { approve, requestId, clientId: c.clientId, username },
      { onSuccess: ({ url }) => redirect.mutate(url) },
    );
  const busy = decide.isPending || redirect.isPending || decide.isSuccess;

  return (
    <Card variant="borderless" style={{ maxWidth: 640, margin: '24px auto' }}>
      <Flex vertical gap="middle">
        <title>Authorize {c.applicationName}</title>
        <Typography.Title level={1} style={{ fontSize: 24, margin: 0 }}>
          Authorize {c.applicationName}
        </Typography.Title>
        <Typography.Paragraph style={{ margin: 0 }}>
          <Typography.Text strong>{c.applicationName}</Typography.Text> asks to access Granary as{' '}
          <Typography.Text strong>{c.username}</Typography.Text>.
        </Typography.Paragraph>
        {c.description && <Typography.Paragraph type="secondary">{c.description}</Typography.Paragraph>}
        <Descriptions
          column={1}
          size="small"
          bordered
          items={[
            { key: 'app', label: 'Application', children: c.platformBaseUrl },
            { key: 'redirect', label: 'Returns you to', children: c.redirectUri },
            {
              key: 'scopes',
              label: 'Access',
              children: (
                <Flex vertical gap={4}>
                  {c.scopes.map((s) => (
                    <span key={s}>
                      <Tag>{s}</Tag> {SCOPE_TEXT[s] ?? ''}
                    </span>
                  ))}
                </Flex>
              ),
            },
          ]}
        />
        <Alert
          type="info"
          showIcon
          title="You can revoke this access at any time under Integrations → Authorized applications."
        />
        {decide.isError && <ErrorAlert error={decide.error} />}
        <Flex gap="small" justify="end">
          <Button onClick={() => answer(false)} disabled={busy}>
            Deny
          </Button>
          <Button type="primary" onClick={() => answer(true)} loading={busy}>
            Allow
          </Button>
        </Flex>
      </Flex>
    </Card>
  );
}
