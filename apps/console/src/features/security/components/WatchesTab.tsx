import { PlusOutlined } from '@ant-design/icons';
import type { XrayWatch } from '@granary/contracts';
import { useQuery } from '@tanstack/react-query';
import { App, Button, Empty, Flex, Popconfirm, Space, Table, Tag } from 'antd';
import { useState } from 'react';
import { QueryState } from '../../../shared/components/AdminPage.tsx';
import { useDeleteWatchMutation, watchesQueryOptions } from '../queries.ts';
import { WatchEditor } from './WatchEditor.tsx';

const resourcesLabel = (w: XrayWatch) => {
  const resources = w.project_resources?.resources ?? [];
  if (resources.some((r) => r.type === 'all-repos')) return 'All repositories';
  return resources.map((r) => r.name ?? r.type).join(', ') || '—';
};

/** Watches (Xray's model): which repositories are watched and which policies apply; create, edit, delete (admin). */
export function WatchesTab() {
  const { message } = App.useApp();
  const query = useQuery(watchesQueryOptions());
  const remove = useDeleteWatchMutation();
  const [editing, setEditing] = useState<XrayWatch | null | undefined>(undefined);
  return (
    <Flex vertical gap="middle">
      <Flex justify="flex-end">
        <Button type="primary" icon={<PlusOutlined />} onClick={() => setEditing(null)}>
          New watch
        </Button>
      </Flex>
      <QueryState
        isPending={query.isPending}
        error={query.error}
        onRetry={() => void query.refetch()}
        what="the watches"
      />
      {query.data && (
        <Table<XrayWatch>
          rowKey={(w) => w.general_data.name}
          size="middle"
          dataSource={query.data}
          pagination={{ pageSize: 25, hideOnSinglePage: true, showSizeChanger: false }}
          locale={{
            emptyText: <Empty description="No watches yet. A watch applies policies to repositories." />,
          }}
          columns={[
            { title: 'Name', key: 'name', render: (_, w) => <strong>{w.general_data.name}</strong> },
            {
              title: 'State',
              key: 'active',
              render: (_, w) =>
                w.general_data.active ? <Tag color="#1f5f3a">active</Tag> : <Tag>inactive</Tag>,
            },
            { title: 'Repositories', key: 'resources', render: (_, w) => resourcesLabel(w) },
            {
              title: 'Policies',
              key: 'policies',
              render: (_, w) => (w.assigned_policies ?? []).map((p) => p.name).join(', ') || '—',
            },
            {
              title: 'Actions',
              key: 'actions',
              render: (_, w) => (
                <Space size="small">
                  <Button
                    size="small"
                    onClick={() => setEditing(w)}
                    aria-label={`Edit watch ${w.general_data.name}`}
                  >
                    Edit
                  </Button>
                  <Popconfirm
                    title={`Delete watch ${w.general_data.name}?`}
                    okText="Delete"
                    okButtonProps={{ danger: true }}
                    onConfirm={() =>
                      remove.mutateAsync(w.general_data.name).then(
                        () => message.success(`Watch ${w.general_data.name} deleted`),
                        (error: Error) => message.error(error.message),
                      )
                    }
                  >
                    <Button size="small" danger aria-label={`Delete watch ${w.general_data.name}`}>
                      Delete
                    </Button>
                  </Popconfirm>
                </Space>
              ),
            },
          ]}
        />
      )}
      <WatchEditor
        open={editing !== undefined}
        watch={editing ?? null}
        onClose={() => setEditing(undefined)}
      />
    </Flex>
  );
}
