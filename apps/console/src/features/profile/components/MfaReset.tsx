import { App, Button, Form, Input, Space, Typography } from 'antd';
import { ErrorAlert } from '../../../shared/components/ErrorAlert.tsx';
import { mandatoryText } from '../../../shared/forms/rules.ts';
import { zodRule } from '../../../shared/forms/zodRule.ts';
import { useResetMfaMutation } from '../queries.ts';

/** Removes the user's own authenticator with the password and a code from it (`POST auth/mfa/reset`). */
export function MfaReset({ onDone }: { onDone: () => void }) {
  const reset = useResetMfaMutation();
  const { message } = App.useApp();
  return (
    <Form
      layout="vertical"
      style={{ maxWidth: 480 }}
      disabled={reset.isPending}
      onFinish={({ password, otp }: { password: string; otp: string }) =>
        reset.mutate(
          { password, otp },
          {
            onSuccess: () => {
              message.success('Authenticator removed');
              onDone();
            },
          },
        )
      }
    >
      <Typography.Paragraph>
        Sign-in will no longer ask for a one-time code, unless an administrator requires it.
      </Typography.Paragraph>
      {reset.isError && <ErrorAlert error={reset.error} style={{ marginBottom: 16 }} />}
      <Form.Item label="Current password" name="password" rules={[zodRule(mandatoryText)]}>
        <Input.Password autoComplete="current-password" />
      </Form.Item>
      <Form.Item label="Code from the authenticator" name="otp" rules={[zodRule(mandatoryText)]}>
        <Input autoComplete="one-time-code" inputMode="numeric" maxLength={10} />
      </Form.Item>
      <Space>
        <Button danger htmlType="submit" loading={reset.isPending}>
          Remove authenticator
        </Button>
        <Button type="link" onClick={onDone}>
          Cancel
        </Button>
      </Space>
    </Form>
  );
}
