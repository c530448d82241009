import { ACCESS_MESSAGES } from '@granary/contracts';
import { Alert, Button, Form, Input, Result, Typography } from 'antd';
import { Link } from 'react-router';
import { isApiError } from '../../../shared/api/index.ts';
import { mandatoryText } from '../../../shared/forms/rules.ts';
import { zodRule } from '../../../shared/forms/zodRule.ts';
import { useForgotPasswordMutation } from '../queries.ts';

/** spec 000 §8: the answer's error field, else "Email wasn't sent". */
export function forgotPasswordFailureMessage(error: unknown): string {
  if (isApiError(error) && error.status !== 0 && error.message.trim() !== '') return error.message;
  return ACCESS_MESSAGES.forgotPasswordFailure;
}

/** spec 000 §2 forgotPassword: ask for a reset link by e-mail. */
export function ForgotPasswordPage() {
  const forgot = useForgotPasswordMutation();
  if (forgot.isSuccess) {
    return (
      <>
        <title>Reset password - Granary</title>
        <Result
          status="info"
          title={<h1 className="result-heading">Password reset requested</h1>}
          subTitle={forgot.data.message}
          extra={<Link to="/login">Back to sign in</Link>}
        />
      </>
    );
  }
  return (
    <>
      <title>Reset password - Granary</title>
      <h1>Forgot your password?</h1>
      <Typography.Paragraph type="secondary">
        Enter your username; a link to choose a new password is sent to your e-mail address.
      </Typography.Paragraph>
      {forgot.isError && (
        <Alert
          type="error"
          showIcon
          title={forgotPasswordFailureMessage(forgot.error)}
          style={{ marginBottom: 16 }}
        />
      )}
      <Form
        layout="vertical"
        requiredMark={false}
        onFinish={({ user }: { user: string }) => forgot.mutate({ user: user.trim() })}
        disabled={forgot.isPending}
      >
        <Form.Item label="Username" name="user" rules={[zodRule(mandatoryText)]}>
          <Input autoComplete="username" autoFocus />
        </Form.Item>
        <Button type="primary" htmlType="submit" block size="large" loading={forgot.isPending}>
          Send reset link
        </Button>
      </Form>
      <Typography.Paragraph style={{ marginTop: 16, marginBottom: 0 }}>
        <Link to="/login">Back to sign in</Link>
      </Typography.Paragraph>
    </>
  );
}
