import { PlusOutlined } from '@ant-design/icons';
import type { XrayPolicy } from '@granary/contracts';
import { useQuery } from '@tanstack/react-query';
import { App, Button, Empty, Flex, Popconfirm, Space, Table, Tag } from 'antd';
import { useState } from 'react';
import { QueryState } from '../../../shared/components/AdminPage.tsx';
import { describeRule } from '../policyForm.ts';
import { policiesQueryOptions, useDeletePolicyMutation } from '../queries.ts';
import { PolicyEditor } from './PolicyEditor.tsx';

/** Policies (Xray's model): the list with each rule in a sentence; create, edit and delete (admin). */
export function PoliciesTab() {
  const { message } = App.useApp();
  const query = useQuery(policiesQueryOptions());
  const remove = useDeletePolicyMutation();
  const [editing, setEditing] = useState<XrayPolicy | null | undefined>(undefined);
  return (
    <Flex vertical gap="middle">
      <Flex justify="flex-end">
        <Button type="primary" icon={<PlusOutlined />} onClick={() => setEditing(null)}>
          New policy
        </Button>
      </Flex>
      <QueryState
        isPending={query.isPending}
        error={query.error}
        onRetry={() => void query.refetch()}
        what="the policies"
      />
      {query.data && (
        <Table<XrayPolicy>
          rowKey="name"
          size="middle"
          dataSource={query.data}
          pagination={{ pageSize: 25, hideOnSinglePage: true, showSizeChanger: false }}
          locale={{
            emptyText: (
              <Empty description="No policies yet. A policy says which findings are violations and what happens then." />
            ),
          }}
          columns={[
            {
              title: 'Name',
              dataIndex: 'name',
              key: 'name',
              render: (name: string) => <strong>{name}</strong>,
            },
            { title: 'Type', key: 'type', render: (_, p) => <Tag>{p.type}</Tag> },
            {
              title: 'Rules',
              key: 'rules',
              render: (_, p) => (
                <ul className="security-rules">
                  {[...p.rules]
                    .sort((a, b) => a.priority - b.priority)
                    .map((r) => (
                      <li key={r.name}>{describeRule(p.type, r)}</li>
                    ))}
                </ul>
              ),
            },
            {
              title: 'Actions',
              key: 'actions',
              render: (_, p) => (
                <Space size="small">
                  <Button size="small" onClick={() => setEditing(p)} aria-label={`Edit policy ${p.name}`}>
                    Edit
                  </Button>
                  <Popconfirm
                    title={`Delete policy ${p.name}?`}
                    okText="Delete"
                    okButtonProps={{ danger: true }}
                    onConfirm={() =>
                      remove.mutateAsync(p.name).then(
                        () => message.success(`Policy ${p.name} deleted`),
                        (error: Error) => message.error(error.message),
                      )
                    }
                  >
                    <Button size="small" danger aria-label={`Delete policy ${p.name}`}>
                      Delete
                    </Button>
                  </Popconfirm>
                </Space>
              ),
            },
          ]}
        />
      )}
      <PolicyEditor
        open={editing !== undefined}
        policy={editing ?? null}
        onClose={() => setEditing(undefined)}
      />
    </Flex>
  );
}
