import type { UserData } from '@granary/contracts';
import { useQuery } from '@tanstack/react-query';
import { App, Button, Card, Form, Input, Popconfirm, Space, Typography } from 'antd';
import { ErrorAlert } from '../../../shared/components/ErrorAlert.tsx';
import { SecretReveal } from '../../../shared/components/SecretReveal.tsx';
import { mandatoryText } from '../../../shared/forms/rules.ts';
import { zodRule } from '../../../shared/forms/zodRule.ts';
import { apiKeyInfoQueryOptions, useFetchApiKeyMutation, useRevokeApiKeyMutation } from '../queries.ts';

/**
 * spec 001 §7 API key: `GET /ui/userApiKey` says whether one exists; a new one comes from `GET api key/{username}`
 * with the password in the re-authentication header, and is shown once. An API key is a long-lived personal
 * token; a new one replaces the old one.
 */
export function ApiKeyCard({ user }: { user: UserData }) {
  const info = useQuery(apiKeyInfoQueryOptions());
  const fetchKey = useFetchApiKeyMutation();
  const revoke = useRevokeApiKeyMutation();
  const { message } = App.useApp();
  const [form] = Form.useForm<{ password: string; otp?: string }>();
  const exists = info.data?.exists === true;
  // spec 000 §6: an OAuth realm user has no Granary password; the call carries an empty one.
  const oauth = user.realm === 'oauth';
  return (
    <Card title={<h2 className="card-heading">API key</h2>} variant="borderless">
      <Typography.Paragraph type="secondary">
        {exists
          ? `You have an API key, created ${new Date(info.data!.createdAt!).toLocaleString()}. It is shown only when created; a new one replaces it.`
          : 'An API key is a long-lived personal token for scripts and clients. It is shown once.'}
        {oauth && ' You sign in through single sign-on, so no password is asked.'}
      </Typography.Paragraph>
      {fetchKey.isError && <ErrorAlert error={fetchKey.error} style={{ marginBottom: 16 }} />}
      <Form
        form={form}
        layout="inline"
        disabled={fetchKey.isPending}
        onFinish={({ password, otp }) =>
          fetchKey.mutate(
            { name: user.name, password: oauth ? '' : password, otp },
            { onSuccess: () => form.resetFields() },
          )
        }
      >
        {!oauth && (
          <Form.Item label="Current password" name="password" rules={[zodRule(mandatoryText)]}>
            <Input.Password autoComplete="current-password" />
          </Form.Item>
        )}
        {!oauth && user.mfaEnrolled && (
          <Form.Item label="One-time code" name="otp" rules={[zodRule(mandatoryText)]}>
            <Input autoComplete="one-time-code" inputMode="numeric" maxLength={10} />
          </Form.Item>
        )}
        {/* issue 22: the two actions spaced apart, not touching */}
        <Space size="small" wrap>
          <Button type="primary" htmlType="submit" loading={fetchKey.isPending}>
            {exists ? 'Create a new API key' : 'Create API key'}
          </Button>
          {exists && (
            <Popconfirm
              title="Revoke your API key?"
              description="Clients using it stop working at once."
              okText="Revoke"
              okButtonProps={{ danger: true }}
              onConfirm={() =>
                revoke.mutate(undefined, { onSuccess: () => message.success('API key revoked') })
              }
            >
              <Button danger loading={revoke.isPending}>
                Revoke
              </Button>
            </Popconfirm>
          )}
        </Space>
      </Form>
      {fetchKey.data && (
        <SecretReveal title="Your new API key" secret={fetchKey.data.apiKey} style={{ marginTop: 16 }} />
      )}
    </Card>
  );
}
