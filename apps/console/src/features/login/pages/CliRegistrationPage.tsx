import { CLI_SESSION_PATTERN } from '@granary/contracts';
import { useQuery } from '@tanstack/react-query';
import { Alert, Button, Flex, Input, Result, Typography } from 'antd';
import { useState } from 'react';
import { Link, Navigate, useLocation, useSearchParams } from 'react-router';
import { savePathAfterLogin } from '../../../shared/session/pathAfterLogin.ts';
import { currentUserQueryOptions } from '../../../shared/session/queries.ts';
import { PageLoading } from '../../../shared/session/RequireSignIn.tsx';
import {
  cliSessionQueryOptions,
  useCancelCliSessionMutation,
  useConfirmCliSessionMutation,
} from '../queries.ts';

/**
 * spec 000 §2 cli-registration (/login/cli-registration?session=…): a command-line client opened a sign-in
 * request; the signed-in user compares the code with the one the CLI shows and confirms (or refuses). The CLI
 * then receives an access token of this user. Anonymous visitors sign in first and come back here.
 */
export function CliRegistrationPage() {
  const [params] = useSearchParams();
  const location = useLocation();
  const session = params.get('session');
  const current = useQuery(currentUserQueryOptions());
  if (!session || !CLI_SESSION_PATTERN.test(session)) return <Navigate to="/login" replace />;
  if (current.isPending) return <PageLoading label="Checking your session…" />;
  if (!current.data) {
    const path = `${location.pathname}${location.search}`;
    savePathAfterLogin(path, { force: true });
    return <Navigate to={`/login?${new URLSearchParams({ redirectTo: path })}`} replace />;
  }
  return (
    <Confirm session={session} userName={current.data.name} needsOtp={current.data.mfaEnrolled === true} />
  );
}

function Confirm({ session, userName, needsOtp }: { session: string; userName: string; needsOtp: boolean }) {
  const info = useQuery(cliSessionQueryOptions(session));
  const confirm = useConfirmCliSessionMutation();
  const cancel = useCancelCliSessionMutation();
  const [otp, setOtp] = useState('');
  return (
    <>
      <title>Sign in a command-line client - Granary</title>
      <h1>Sign in a command-line client</h1>
      {info.isPending && <PageLoading />}
      {info.isError && (
        <>
          <Alert type="error" showIcon title={info.error.message} style={{ marginBottom: 16 }} />
          <Link to="/">Go to Granary</Link>
        </>
      )}
      {confirm.isSuccess && (
        <Result
          status="success"
          title="The command-line client is signed in"
          subTitle="You can close this page and return to your terminal."
        />
      )}
      {cancel.isSuccess && (
        <Result status="info" title="Request refused" subTitle="The command-line client was not signed in." />
      )}
      {info.data && !confirm.isSuccess && !cancel.isSuccess && (
        <>
          <Typography.Paragraph>
            {info.data.client ? (
              <>
                <strong>{info.data.client}</strong> asks
              </>
            ) : (
              'A command-line client asks'
            )}{' '}
            to act as <strong>{userName}</strong> with a new access token.
          </Typography.Paragraph>
          <Typography.Paragraph>Check that your terminal shows this code:</Typography.Paragraph>
          <Typography.Paragraph className="cli-code" aria-label="Confirmation code">
            <Typography.Text code style={{ fontSize: 24, letterSpacing: 2 }}>
              {info.data.code}
            </Typography.Text>
          </Typography.Paragraph>
          {(confirm.isError || cancel.isError) && (
            <Alert
              type="error"
              showIcon
              title={(confirm.error ?? cancel.error)?.message}
              style={{ marginBottom: 16 }}
            />
          )}
          {needsOtp && (
            <Typography.Paragraph>
              <label htmlFor="cli-registration-otp">Code from your authenticator</label>{' '}
              <Input
                id="cli-registration-otp"
                autoComplete="one-time-code"
                inputMode="numeric"
                maxLength={10}
                value={otp}
                onChange={(e) => setOtp(e.target.value)}
                style={{ maxWidth: 160 }}
              />
            </Typography.Paragraph>
          )}
          <Flex gap="small">
            <Button
              type="primary"
              size="large"
              loading={confirm.isPending}
              disabled={cancel.isPending || (needsOtp && otp.trim() === '')}
              onClick={() => confirm.mutate({ session, otp })}
            >
              Confirm
            </Button>
            <Button
              size="large"
              loading={cancel.isPending}
              disabled={confirm.isPending}
              onClick={() => cancel.mutate(session)}
            >
              Refuse
            </Button>
          </Flex>
        </>
      )}
    </>
  );
}
