import { PlusOutlined } from '@ant-design/icons';
import type { Environment } from '@granary/contracts';
import { useQuery } from '@tanstack/react-query';
import {
  App,
  Button,
  Empty,
  Form,
  Input,
  InputNumber,
  Modal,
  Popconfirm,
  Select,
  Space,
  Table,
  Tag,
} from 'antd';
import { useState } from 'react';
import { AdminPage } from '../../../../shared/components/AdminPage.tsx';
import { ErrorAlert } from '../../../../shared/components/ErrorAlert.tsx';
import { repositoriesQueryOptions } from '../../../../shared/repositories/queries.ts';
import {
  environmentsQueryOptions,
  useDeleteEnvironmentMutation,
  useSaveEnvironmentMutation,
} from '../../queries.ts';

/**
 * Issue 19 environments (Artifactory: Administration → Environments): the promotion path (DEV → QA → PROD), each
 * with the local repositories a promotion copies the bundle's files into.
 */
export function EnvironmentsPage() {
  const { message } = App.useApp();
  const environments = useQuery(environmentsQueryOptions());
  const repositories = useQuery(repositoriesQueryOptions());
  const save = useSaveEnvironmentMutation();
  const remove = useDeleteEnvironmentMutation();
  const [editing, setEditing] = useState<Environment | 'new' | null>(null);
  const [form] = Form.useForm<{ name: string; rank?: number; repositories: string[] }>();
  const sorted = [...(environments.data ?? [])].sort((a, b) => a.rank - b.rank);
  const open = (e: Environment | 'new') => {
    setEditing(e);
    form.setFieldsValue(
      e === 'new'
        ? { name: '', rank: (sorted.at(-1)?.rank ?? 0) + 1, repositories: [] }
        : { name: e.name, rank: e.rank, repositories: e.repositories },
    );
  };
  const submit = async () => {
    const v = await form.validateFields();
    const create = editing === 'new';
    save.mutate(
      { name: v.name, create, body: { rank: v.rank, repositories: v.repositories ?? [] } },
      {
        onSuccess: () => {
          message.success(`Environment ${v.name} ${create ? 'created' : 'saved'}`);
          setEditing(null);
        },
      },
    );
  };
  return (
    <AdminPage
      title="Environments"
      extra={
        <Button type="primary" icon={<PlusOutlined aria-hidden />} onClick={() => open('new')}>
          New environment
        </Button>
      }
    >
      {environments.error && <ErrorAlert error={environments.error} />}
      <Table
        rowKey="name"
        loading={environments.isPending}
        dataSource={sorted}
        pagination={false}
        locale={{
          emptyText: <Empty description="No environments: define the promotion path, e.g. DEV, QA, PROD" />,
        }}
        columns={[
          { title: 'Order', dataIndex: 'rank', key: 'rank', width: 80 },
          { title: 'Name', dataIndex: 'name', key: 'name' },
          {
            title: 'Repositories',
            key: 'repos',
            render: (_, e) => e.repositories.map((r) => <Tag key={r}>{r}</Tag>),
          },
          {
            title: '',
            key: 'actions',
            render: (_, e) => (
              <Space>
                <Button size="small" onClick={() => open(e)}>
                  Edit
                </Button>
                <Popconfirm
                  title={`Delete environment ${e.name}?`}
                  okText="Delete"
                  okButtonProps={{ danger: true }}
                  onConfirm={() => remove.mutate(e.name)}
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
        title={editing === 'new' ? 'New environment' : `Edit ${editing?.name ?? ''}`}
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
              { pattern: /^[A-Za-z0-9_-]+$/, message: 'Only letters, digits, "_" and "-"' },
              { max: 32, message: 'At most 32 characters' },
            ]}
          >
            <Input disabled={editing !== 'new'} />
          </Form.Item>
          <Form.Item name="rank" label="Order in the promotion path">
            <InputNumber min={0} max={1000} />
          </Form.Item>
          <Form.Item name="repositories" label="Repositories">
            <Select
              mode="multiple"
              loading={repositories.isPending}
              options={(repositories.data ?? [])
                .filter((r) => r.type.toUpperCase() === 'LOCAL')
                .map((r) => ({ value: r.key, label: r.key }))}
            />
          </Form.Item>
        </Form>
        {save.error && <ErrorAlert error={save.error} />}
      </Modal>
    </AdminPage>
  );
}
