import { ACCESS_MESSAGES } from '@granary/contracts';
import { useQuery } from '@tanstack/react-query';
import { Alert, Button, Form, Input, Typography } from 'antd';
import { Link, Navigate, useSearchParams } from 'react-router';
import { mandatoryText } from '../../../shared/forms/rules.ts';
import { zodRule } from '../../../shared/forms/zodRule.ts';
import { PageLoading } from '../../../shared/session/RequireSignIn.tsx';
import { NewPasswordFields } from '../components/NewPasswordFields.tsx';
import { useAfterLogin } from '../hooks/useAfterLogin.ts';
import {
  isInvitationToken,
  useInvitedSetPasswordMutation,
  verifyInvitationQueryOptions,
} from '../queries.ts';

interface InvitationForm {
  username: string;
  password: string;
  confirm: string;
}

/** A user name suggested from the invited address: its local part, in the characters a name allows. */
function suggestedName(email: string): string {
  return (email.split('@')[0] ?? '').replace(/[^A-Za-z0-9._@-]/g, '').replace(/^[^A-Za-z0-9]+/, '');
}

/**
 * spec 000 §2 invitation (/login/invitation?token=…): needs a token query value that passes the format check
 * (spec 000 §5), otherwise back to login with logout. The token is checked with `access/token/verify`; the
 * invitee picks a user name and a password (`access/entities/users/invited/setPassword`) and is signed in.
 */
export function InvitationPage() {
  const [params] = useSearchParams();
  const token = params.get('token');
  if (!isInvitationToken(token)) return <Navigate to="/login?logout=true" replace />;
  return <Invitation token={token} />;
}

function Invitation({ token }: { token: string }) {
  const verify = useQuery(verifyInvitationQueryOptions(token));
  const accept = useInvitedSetPasswordMutation();
  const afterLogin = useAfterLogin();

  const onFinish = ({ username, password }: InvitationForm) =>
    accept.mutate(
      { token, username: username.trim(), password },
      { onSuccess: (user) => afterLogin(user, { userName: user.name, redirectTo: null }) },
    );

  return (
    <>
      <title>Accept invitation - Granary</title>
      <h1>Create your account</h1>
      {verify.isPending && <PageLoading label="Checking the invitation…" />}
      {verify.isError && (
        <Alert
          type="error"
          showIcon
          title={ACCESS_MESSAGES.invalidInvitation}
          description="Ask your administrator for a new invitation."
          style={{ marginBottom: 16 }}
        />
      )}
      {verify.data && (
        <>
          <Typography.Paragraph type="secondary">
            You were invited as <strong>{verify.data.email}</strong>. Choose a user name and a password.
          </Typography.Paragraph>
          {accept.isError && (
            <Alert type="error" showIcon title={accept.error.message} style={{ marginBottom: 16 }} />
          )}
          <Form<InvitationForm>
            layout="vertical"
            requiredMark={false}
            initialValues={{ username: suggestedName(verify.data.email) }}
            onFinish={onFinish}
            disabled={accept.isPending}
          >
            <Form.Item label="Username" name="username" rules={[zodRule(mandatoryText)]}>
              <Input autoComplete="username" />
            </Form.Item>
            <NewPasswordFields />
            <Button type="primary" htmlType="submit" block size="large" loading={accept.isPending}>
              Create account
            </Button>
          </Form>
        </>
      )}
      <Typography.Paragraph style={{ marginTop: 16, marginBottom: 0 }}>
        <Link to="/login">Back to sign in</Link>
      </Typography.Paragraph>
    </>
  );
}
