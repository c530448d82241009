import { ACCESS_MESSAGES, registrationRequestSchema } from '@granary/contracts';
import { useQuery } from '@tanstack/react-query';
import { Alert, Button, Form, Input, Typography } from 'antd';
import { Link } from 'react-router';
import { zodRule } from '../../../shared/forms/zodRule.ts';
import { PageLoading } from '../../../shared/session/RequireSignIn.tsx';
import { NewPasswordFields } from '../components/NewPasswordFields.tsx';
import { useAfterLogin } from '../hooks/useAfterLogin.ts';
import { loginRelatedDataQueryOptions, useLoginMutation, useRegisterMutation } from '../queries.ts';

interface RegistrationForm {
  user: string;
  email: string;
  password: string;
  confirm: string;
}

/**
 * spec 000 §2 registration: open only while an admin turned self-registration on (loginRelatedData
 * `canRegister`). Posts `ui/auth/register`, then signs in with the new credentials (remember-me off).
 */
export function RegistrationPage() {
  const related = useQuery(loginRelatedDataQueryOptions());
  const register = useRegisterMutation();
  const login = useLoginMutation();
  const afterLogin = useAfterLogin();

  const onFinish = ({ user, email, password }: RegistrationForm) =>
    register.mutate(
      { user: user.trim(), email: email.trim(), password },
      {
        onSuccess: (created) =>
          login.mutate(
            { user: created.name, password, rememberMe: false },
            { onSuccess: (data) => afterLogin(data, { userName: created.name, redirectTo: null }) },
          ),
      },
    );

  const busy = register.isPending || login.isPending;
  return (
    <>
      <title>Create an account - Granary</title>
      <h1>Create an account</h1>
      {related.isPending && <PageLoading />}
      {related.data && !related.data.canRegister && (
        <Alert
          type="info"
          showIcon
          title={ACCESS_MESSAGES.registrationDisabled}
          style={{ marginBottom: 16 }}
        />
      )}
      {related.data?.canRegister && (
        <>
          {register.isError && (
            <Alert type="error" showIcon title={register.error.message} style={{ marginBottom: 16 }} />
          )}
          {login.isError && (
            <Alert
              type="warning"
              showIcon
              title="Your account was created, but signing in failed"
              description={login.error.message}
              style={{ marginBottom: 16 }}
            />
          )}
          <Form<RegistrationForm> layout="vertical" requiredMark={false} onFinish={onFinish} disabled={busy}>
            <Form.Item label="Username" name="user" rules={[zodRule(registrationRequestSchema.shape.user)]}>
              <Input autoComplete="username" autoFocus />
            </Form.Item>
            <Form.Item
              label="Email address"
              name="email"
              rules={[zodRule(registrationRequestSchema.shape.email)]}
            >
              <Input type="email" autoComplete="email" />
            </Form.Item>
            <NewPasswordFields />
            <Button type="primary" htmlType="submit" block size="large" loading={busy}>
              Create account
            </Button>
          </Form>
        </>
      )}
      <Typography.Paragraph style={{ marginTop: 16, marginBottom: 0 }}>
        Already have an account? <Link to="/login">Sign in</Link>
      </Typography.Paragraph>
    </>
  );
}
