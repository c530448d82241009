import { ACCESS_MESSAGES } from '@granary/contracts';
import { Alert, Button, Form, Input, Typography } from 'antd';
import { Link, Navigate, useLocation, useSearchParams } from 'react-router';
import { mandatoryText } from '../../../shared/forms/rules.ts';
import { zodRule } from '../../../shared/forms/zodRule.ts';
import { NewPasswordFields } from '../components/NewPasswordFields.tsx';
import { useAfterLogin } from '../hooks/useAfterLogin.ts';
import { useChangePasswordMutation } from '../queries.ts';

interface ChangeForm {
  oldPassword: string;
  password: string;
  confirm: string;
}

/**
 * spec 000 §2 changePassword (parameter userName): reached when the login answered "credentials expired".
 * §4: change, then sign in automatically with remember-me off. §8: a failure says "Failed to change password".
 */
export function ChangePasswordPage() {
  const [params] = useSearchParams();
  const location = useLocation();
  const userName = params.get('userName') ?? '';
  const redirectTo =
    typeof (location.state as { redirectTo?: unknown } | null)?.redirectTo === 'string'
      ? (location.state as { redirectTo: string }).redirectTo
      : null;
  const change = useChangePasswordMutation();
  const afterLogin = useAfterLogin();
  if (userName === '') return <Navigate to="/login" replace />;

  const onFinish = ({ oldPassword, password, confirm }: ChangeForm) =>
    change.mutate(
      { userName, oldPassword, newPassword1: password, newPassword2: confirm },
      // The answer is the user data, signed in with remember-me off (spec 000 §4).
      { onSuccess: (user) => afterLogin(user, { userName, redirectTo }) },
    );

  return (
    <>
      <title>Change password - Granary</title>
      <h1>Your password has expired</h1>
      <Typography.Paragraph type="secondary">
        Choose a new password for <strong>{userName}</strong> to continue.
      </Typography.Paragraph>
      {change.isError && (
        <Alert
          type="error"
          showIcon
          title={ACCESS_MESSAGES.changePasswordFailure}
          description={change.error.message}
          style={{ marginBottom: 16 }}
        />
      )}
      <Form<ChangeForm>
        layout="vertical"
        requiredMark={false}
        onFinish={onFinish}
        disabled={change.isPending}
      >
        <Form.Item label="Current password" name="oldPassword" rules={[zodRule(mandatoryText)]}>
          <Input.Password autoComplete="current-password" autoFocus />
        </Form.Item>
        <NewPasswordFields />
        <Button type="primary" htmlType="submit" block size="large" loading={change.isPending}>
          Change password
        </Button>
      </Form>
      <Typography.Paragraph style={{ marginTop: 16, marginBottom: 0 }}>
        <Link to="/login">Back to sign in</Link>
      </Typography.Paragraph>
    </>
  );
}
