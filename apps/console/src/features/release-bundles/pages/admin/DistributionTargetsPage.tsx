import { PlusOutlined } from '@ant-design/icons';
import type { DistributionTarget } from '@granary/contracts';
import { useQuery } from '@tanstack/react-query';
import { App, Button, Empty, Form, Input, Modal, Popconfirm, Space, Table, Typography } from 'antd';
import { useEffect, useState } from 'react';
import { useSearchParams } from 'react-router';
import { AdminPage } from '../../../../shared/components/AdminPage.tsx';
import { ErrorAlert } from '../../../../shared/components/ErrorAlert.tsx';
import { targetsQueryOptions, useDeleteTargetMutation, useSaveTargetMutation } from '../../queries.ts';

/**
 * Issue 19 distribution targets (Artifactory's Distribution → Distribution Targets): other Granary instances a
 * release bundle is distributed to, by URL and an access token of a user there. The token is write-only: it is
 * never shown back (only its last four characters), and an empty token on edit keeps the stored one.
 */
export function DistributionTargetsPage() {
  const { message } = App.useApp();
  const [params, setParams] = useSearchParams();
  const targets = useQuery(targetsQueryOptions());
  const save = useSaveTargetMutation();
  const remove = useDeleteTargetMutation();
  const [editing, setEditing] = useState<DistributionTarget | 'new' | null>(null);
  const [form] = Form.useForm<{ name: string; url: string; token: string }>();
  const open = (t: DistributionTarget | 'new') => {
    setEditing(t);
    form.setFieldsValue(
      t === 'new' ? { name: '', url: '', token: '' } : { name: t.name, url: t.url, token: '' },
    );
  };
  // The 'No distribution repositories are configured...' link opens the new-target form (`?new=1`).
  useEffect(() => {
    if (params.get('new') === '1') {
      setEditing('new');
      form.setFieldsValue({ name: '', url: '', token: '' });
      setParams({}, { replace: true });
    }
  }, [params, setParams, form]);
  const create = editing === 'new';
  const submit = async () => {
    const v = await form.validateFields();
    save.mutate(
      {
        create,
        name: v.name,
        body: create ? { url: v.url, token: v.token } : { url: v.url, token: v.token || undefined },
      },
      {
        onSuccess: () => {
          message.success(`Distribution target ${v.name} ${create ? 'created' : 'saved'}`);
          setEditing(null);
        },
      },
    );
  };
  return (
    <AdminPage
      title="Distribution Targets"
      extra={
        <Button type="primary" icon={<PlusOutlined aria-hidden />} onClick={() => open('new')}>
          New target
        </Button>
      }
    >
      {targets.error && <ErrorAlert error={targets.error} />}
      <Table
        rowKey="name"
        loading={targets.isPending}
        dataSource={targets.data ?? []}
        pagination={false}
        locale={{
          emptyText: <Empty description="No distribution targets: add the Granary instances bundles go to" />,
        }}
        columns={[
          { title: 'Name', dataIndex: 'name', key: 'name' },
          { title: 'URL', dataIndex: 'url', key: 'url' },
          {
            title: 'Token',
            key: 'token',
            render: (_, t) => <Typography.Text code>…{t.tokenLast4}</Typography.Text>,
          },
          { title: 'Created', key: 'created', render: (_, t) => new Date(t.created).toLocaleString() },
          {
            title: '',
            key: 'actions',
            render: (_, t) => (
              <Space>
                <Button size="small" onClick={() => open(t)}>
                  Edit
                </Button>
                <Popconfirm
                  title={`Delete target ${t.name}?`}
                  okText="Delete"
                  okButtonProps={{ danger: true }}
                  onConfirm={() => remove.mutate(t.name)}
                >
                  <Button size="small" danger>
                    Delete
                  </Button>
                </Popconfirm>
              </Space>
            ),
          },
        ]}
      />
      {remove.error && <ErrorAlert error={remove.error} />}
      <Modal
        open={editing !== null}
        title={editing !== null && editing !== 'new' ? `Edit ${editing.name}` : 'New distribution target'}
        okText="Save"
        okButtonProps={{ loading: save.isPending }}
        onOk={submit}
        onCancel={() => setEditing(null)}
      >
        <Form form={form} layout="vertical">
          <Form.Item
            name="name"
            label="Name"
            rules={[
              { required: true, message: 'A name is required' },
              { pattern: /^[A-Za-z0-9_.-]+$/, message: 'Only letters, digits, "_", "." and "-"' },
            ]}
          >
            <Input disabled={!create} />
          </Form.Item>
          <Form.Item
            name="url"
            label="URL"
            rules={[
              { required: true, message: 'A URL is required' },
              { type: 'url', message: 'Enter a valid URL' },
            ]}
          >
            <Input placeholder="https://granary-edge.example.com" />
          </Form.Item>
          <Form.Item
            name="token"
            label="Access token"
            extra={
              create
                ? 'An access token of an administrator on the target.'
                : 'Leave empty to keep the stored token.'
            }
            rules={create ? [{ required: true, message: 'A token is required' }] : []}
          >
            <Input.Password autoComplete="new-password" />
          </Form.Item>
        </Form>
        {save.error && <ErrorAlert error={save.error} />}
      </Modal>
    </AdminPage>
  );
}
