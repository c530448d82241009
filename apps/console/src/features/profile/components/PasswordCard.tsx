import { ACCESS_MESSAGES, type UserData } from '@granary/contracts';
import { App, Button, Card, Form, Input } from 'antd';
import { ErrorAlert } from '../../../shared/components/ErrorAlert.tsx';
import { mandatoryText } from '../../../shared/forms/rules.ts';
import { zodRule } from '../../../shared/forms/zodRule.ts';
import { useChangeOwnPasswordMutation } from '../queries.ts';

/** The user's own password: the current one, the new one twice. */
export function PasswordCard({ user }: { user: UserData }) {
  const change = useChangeOwnPasswordMutation();
  const { message } = App.useApp();
  const [form] = Form.useForm<{ oldPassword: string; password: string; confirm: string }>();
  return (
    <Card title={<h2 className="card-heading">Change password</h2>} variant="borderless">
      {change.isError && (
        <ErrorAlert
          title={ACCESS_MESSAGES.changePasswordFailure}
          error={change.error}
          style={{ marginBottom: 16 }}
        />
      )}
      <Form
        form={form}
        layout="vertical"
        style={{ maxWidth: 480 }}
        disabled={change.isPending}
        onFinish={(v) =>
          change.mutate(
            {
              userName: user.name,
              oldPassword: v.oldPassword,
              newPassword1: v.password,
              newPassword2: v.confirm,
            },
            {
              onSuccess: () => {
                message.success('Password changed');
                form.resetFields();
              },
            },
          )
        }
      >
        <Form.Item label="Current password" name="oldPassword" rules={[zodRule(mandatoryText)]}>
          <Input.Password autoComplete="current-password" />
        </Form.Item>
        <Form.Item label="New password" name="password" rules={[zodRule(mandatoryText)]}>
          <Input.Password autoComplete="new-password" />
        </Form.Item>
        <Form.Item
          label="Confirm new password"
          name="confirm"
          dependencies={['password']}
          rules={[
            zodRule(mandatoryText),
            ({ getFieldValue }) => ({
              validator: async (_r, value: unknown) => {
                if (value && value !== getFieldValue('password'))
                  throw new Error(ACCESS_MESSAGES.passwordsDoNotMatch);
              },
            }),
          ]}
        >
          <Input.Password autoComplete="new-password" />
        </Form.Item>
        <Button htmlType="submit" loading={change.isPending}>
          Change password
        </Button>
      </Form>
    </Card>
  );
}
