import { ACCESS_MESSAGES } from '@granary/contracts';
import { useQuery } from '@tanstack/react-query';
import { Alert, Button, Form, Typography } from 'antd';
import { Link, useSearchParams } from 'react-router';
import { PageLoading } from '../../../shared/session/RequireSignIn.tsx';
import { NewPasswordFields } from '../components/NewPasswordFields.tsx';
import { useAfterLogin } from '../hooks/useAfterLogin.ts';
import { useResetPasswordMutation, validateResetKeyQueryOptions } from '../queries.ts';

interface ResetForm {
  password: string;
  confirm: string;
}

/**
 * spec 000 §2 resetPassword (/auth/reset-password?key=), §4: validate the key, reset, then sign in
 * automatically with remember-me off. spec 000 §8: a failure says "Failed to reset the password".
 */
export function ResetPasswordPage() {
  const [params] = useSearchParams();
  const key = params.get('key') ?? '';
  const validation = useQuery({ ...validateResetKeyQueryOptions(key), enabled: key !== '' });
  const reset = useResetPasswordMutation();
  const afterLogin = useAfterLogin();

  const onFinish = ({ password }: ResetForm) => {
    const user = validation.data?.user;
    if (!user) return;
    // The answer is the user data, signed in with remember-me off (spec 000 §4).
    reset.mutate(
      { key, user, password },
      { onSuccess: (data) => afterLogin(data, { userName: user, redirectTo: null }) },
    );
  };

  const invalidKey = key === '' || validation.isError;
  return (
    <>
      <title>Reset password - Granary</title>
      <h1>Choose a new password</h1>
      {validation.isLoading && <PageLoading label="Checking the reset link…" />}
      {invalidKey && (
        <>
          <Alert
            type="error"
            showIcon
            title={ACCESS_MESSAGES.resetPasswordFailure}
            description={
              validation.error?.message ??
              'The link has no reset key. Ask for a new link to reset the password.'
            }
            style={{ marginBottom: 16 }}
          />
          <Link to="/login/forgot-password">Ask for a new link</Link>
        </>
      )}
      {validation.data && (
        <>
          <Typography.Paragraph type="secondary">
            Setting a new password for <strong>{validation.data.user}</strong>.
          </Typography.Paragraph>
          {reset.isError && (
            <Alert
              type="error"
              showIcon
              title={ACCESS_MESSAGES.resetPasswordFailure}
              description={reset.error.message}
              style={{ marginBottom: 16 }}
            />
          )}
          <Form<ResetForm>
            layout="vertical"
            requiredMark={false}
            onFinish={onFinish}
            disabled={reset.isPending}
          >
            <NewPasswordFields />
            <Button type="primary" htmlType="submit" block size="large" loading={reset.isPending}>
              Reset password
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
