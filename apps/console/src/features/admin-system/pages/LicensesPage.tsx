import { useQuery } from '@tanstack/react-query';
import { App, Button, Card, Descriptions, Flex, Form, Input, Popconfirm, Typography } from 'antd';
import { ErrorAlert } from '../../../shared/components/ErrorAlert.tsx';
import { licenseQueryOptions, useInstallLicense, useRemoveLicense } from '../queries.ts';

/** spec 000 §2 /admin/license_management/licenses: the licence in force, install a key, remove it. */
export function LicensesPage() {
  const license = useQuery(licenseQueryOptions());
  const install = useInstallLicense();
  const remove = useRemoveLicense();
  const [form] = Form.useForm<{ licenseKey: string }>();
  const { message } = App.useApp();
  return (
    <Flex vertical gap="large">
      <Typography.Title level={1}>Licences</Typography.Title>
      <Card title={<h2 className="card-heading">Licence in force</h2>}>
        {license.isPending && <Typography.Text>Loading the licence…</Typography.Text>}
        {license.isError && <ErrorAlert title="Could not load the licence" error={license.error} />}
        {license.data && (
          <>
            <Descriptions column={1} bordered size="small">
              <Descriptions.Item label="Type">{license.data.type}</Descriptions.Item>
              <Descriptions.Item label="Licensed to">{license.data.licensedTo ?? '—'}</Descriptions.Item>
              <Descriptions.Item label="Source">{license.data.source}</Descriptions.Item>
              <Descriptions.Item label="Valid through">
                {license.data.validThrough ?? 'No expiry'}
              </Descriptions.Item>
              {license.data.reason && (
                <Descriptions.Item label="Note">{license.data.reason}</Descriptions.Item>
              )}
            </Descriptions>
            {license.data.source !== 'none' && (
              <Popconfirm
                title="Remove the licence? Features that need it stop working."
                onConfirm={() =>
                  remove.mutate(undefined, { onSuccess: () => message.success('The licence was removed') })
                }
              >
                <Button danger style={{ marginTop: 16 }} loading={remove.isPending}>
                  Remove licence
                </Button>
              </Popconfirm>
            )}
          </>
        )}
      </Card>
      <Card title={<h2 className="card-heading">Install a licence key</h2>}>
        <Form
          form={form}
          layout="vertical"
          onFinish={({ licenseKey }) =>
            install.mutate(licenseKey.trim(), {
              onSuccess: () => {
                form.resetFields();
                message.success('Licence installed');
              },
            })
          }
        >
          <Form.Item
            label="Licence key"
            name="licenseKey"
            rules={[{ required: true, message: 'Paste a licence key' }]}
          >
            <Input.TextArea rows={4} spellCheck={false} />
          </Form.Item>
          {install.isError && <ErrorAlert error={install.error} style={{ marginBottom: 16 }} />}
          <Button type="primary" htmlType="submit" loading={install.isPending}>
            Install
          </Button>
        </Form>
      </Card>
    </Flex>
  );
}
