import {
  APPLICATION_MESSAGES,
  APPLICATION_TYPES,
  type ApplicationCreate,
  applicationNameSchema,
} from '@granary/contracts';
import { Alert, App, Button, Card, Descriptions, Flex, Form, Input, Select, Typography } from 'antd';
import { useNavigate } from 'react-router';
import { z } from 'zod';
import { AdminPage } from '../../../shared/components/AdminPage.tsx';
import { ErrorAlert } from '../../../shared/components/ErrorAlert.tsx';
import { mandatoryText } from '../../../shared/forms/rules.ts';
import { zodRule } from '../../../shared/forms/zodRule.ts';
import { useCreateApplicationMutation } from '../applicationQueries.ts';
import { APPLICATIONS_PATH } from './ApplicationIntegrationsPage.tsx';

const httpUrl = mandatoryText.refine((v) => {
  try {
    const u = new URL(v.trim());
    return (u.protocol === 'http:' || u.protocol === 'https:') && !u.hash;
  } catch {
    return false;
  }
}, APPLICATION_MESSAGES.url);

/**
 * spec 001 §2 admin configuration/integrations/new, §3 application integration form (Application Name, Application
 * Type, Description, Callback URL, Platform Base Url; Client ID and Secret are issued by Granary), §5 name rules and
 * §8: 'Successfully created integration {name}' and the secret shown once with the notice.
 */
export function NewApplicationPage() {
  const [form] = Form.useForm<ApplicationCreate>();
  const create = useCreateApplicationMutation();
  const { message } = App.useApp();
  const navigate = useNavigate();
  const created = create.data;

  return (
    <AdminPage title="New Integration" trail={[['Integrations', APPLICATIONS_PATH]]}>
      <Card variant="borderless" style={{ maxWidth: 760 }}>
        {created ? (
          <Flex vertical gap="middle">
            <Alert type="warning" showIcon title={APPLICATION_MESSAGES.secretNotice} />
            <Descriptions
              column={1}
              bordered
              size="small"
              items={[
                { key: 'name', label: 'Application Name', children: created.name },
                {
                  key: 'client',
                  label: 'Client ID',
                  children: <Typography.Text copyable>{created.clientId}</Typography.Text>,
                },
                {
                  key: 'secret',
                  label: 'Secret',
                  children: (
                    <Typography.Text
                      code
                      copyable={{ text: created.clientSecret }}
                      style={{ wordBreak: 'break-all' }}
                    >
                      {created.clientSecret}
                    </Typography.Text>
                  ),
                },
                { key: 'callback', label: 'Callback URL', children: created.callbackUrl },
                { key: 'base', label: 'Platform Base Url', children: created.platformBaseUrl },
              ]}
            />
            <Flex gap="small">
              <Button type="primary" onClick={() => navigate(APPLICATIONS_PATH)}>
                Done
              </Button>
            </Flex>
          </Flex>
        ) : (
          <Form<ApplicationCreate>
            form={form}
            layout="vertical"
            disabled={create.isPending}
            initialValues={{ type: 'web', description: '' }}
            onFinish={(values) =>
              create.mutate(
                { ...values, name: values.name.trim() },
                { onSuccess: (app) => message.success(APPLICATION_MESSAGES.created(app.name)) },
              )
            }
          >
            {create.isError && <ErrorAlert error={create.error} style={{ marginBottom: 16 }} />}
            <Form.Item label="Application Name" name="name" rules={[zodRule(applicationNameSchema)]}>
              <Input autoComplete="off" />
            </Form.Item>
            <Form.Item
              label="Application Type"
              name="type"
              rules={[zodRule(z.enum(APPLICATION_TYPES, { message: APPLICATION_MESSAGES.mandatory }))]}
            >
              <Select options={APPLICATION_TYPES.map((t) => ({ value: t, label: t }))} />
            </Form.Item>
            <Form.Item label="Description" name="description">
              <Input.TextArea rows={2} maxLength={1024} />
            </Form.Item>
            <Form.Item label="Callback URL" name="callbackUrl" rules={[zodRule(httpUrl)]}>
              <Input placeholder="https://app.example.com/oauth/callback" />
            </Form.Item>
            <Form.Item label="Platform Base Url" name="platformBaseUrl" rules={[zodRule(httpUrl)]}>
              <Input placeholder="https://app.example.com" />
            </Form.Item>
            <Typography.Paragraph type="secondary">
              Granary issues the Client ID and the Secret when you create the integration.
            </Typography.Paragraph>
            <Flex gap="small">
              <Button type="primary" htmlType="submit" loading={create.isPending}>
                Create Integration
              </Button>
              <Button onClick={() => navigate(APPLICATIONS_PATH)}>Cancel</Button>
            </Flex>
          </Form>
        )}
      </Card>
    </AdminPage>
  );
}
