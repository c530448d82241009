import type { UserData } from '@granary/contracts';
import { App, Button, Form, Input } from 'antd';
import { z } from 'zod';
import { ErrorAlert } from '../../../shared/components/ErrorAlert.tsx';
import { mandatoryText } from '../../../shared/forms/rules.ts';
import { zodRule } from '../../../shared/forms/zodRule.ts';
import { useUpdateEmailMutation } from '../queries.ts';

const emailRule = z.union([z.literal(''), z.email('Enter a valid email address')]);

/** spec 000 §7 `POST ui/userProfile`: the user's own email address, with the current password. */
export function EmailForm({ user }: { user: UserData }) {
  const update = useUpdateEmailMutation();
  const { message } = App.useApp();
  const [form] = Form.useForm<{ email: string; password: string }>();
  return (
    <Form
      form={form}
      layout="vertical"
      style={{ maxWidth: 480 }}
      initialValues={{ email: user.email ?? '', password: '' }}
      onFinish={({ email, password }) =>
        update.mutate(
          { password, email: email.trim() === '' ? null : email.trim() },
          {
            onSuccess: () => {
              message.success('Email address saved');
              form.setFieldValue('password', '');
            },
          },
        )
      }
      disabled={update.isPending}
    >
      {update.isError && <ErrorAlert error={update.error} style={{ marginBottom: 16 }} />}
      <Form.Item label="Email address" name="email" rules={[zodRule(emailRule)]}>
        <Input type="email" autoComplete="email" />
      </Form.Item>
      <Form.Item
        label="Current password"
        name="password"
        extra="Needed to save a new email address."
        rules={[zodRule(mandatoryText)]}
      >
        <Input.Password autoComplete="current-password" />
      </Form.Item>
      <Button htmlType="submit" loading={update.isPending}>
        Save email
      </Button>
    </Form>
  );
}
