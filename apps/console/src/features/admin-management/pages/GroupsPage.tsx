import { PlusOutlined } from '@ant-design/icons';
import { useQuery } from '@tanstack/react-query';
import { App, Button, Card, Flex, Input, Popconfirm, Table } from 'antd';
import { useMemo, useState } from 'react';
import { Link, useNavigate } from 'react-router';
import { AdminPage, QueryState } from '../components/AdminPage.tsx';
import { groupsQueryOptions, useDeleteGroupMutation } from '../queries.ts';

/** spec 000 §2 admin.management groups list. */
export function GroupsPage() {
  const groups = useQuery(groupsQueryOptions());
  const remove = useDeleteGroupMutation();
  const { message } = App.useApp();
  const navigate = useNavigate();
  const [search, setSearch] = useState('');
  const rows = useMemo(() => {
    const term = search.trim().toLowerCase();
    return (groups.data ?? []).filter((g) => g.name.toLowerCase().includes(term));
  }, [groups.data, search]);

  return (
    <AdminPage
      title="Groups"
      extra={
        <Button
          type="primary"
          icon={<PlusOutlined />}
          onClick={() => navigate('/admin/management/groups/new')}
        >
          New Group
        </Button>
      }
    >
      <Card variant="borderless">
        <Flex vertical gap="middle">
          <Input.Search
            aria-label="Search groups"
            placeholder="Search groups"
            allowClear
            value={search}
            onChange={(e) => setSearch(e.target.value)}
            style={{ maxWidth: 320 }}
          />
          <QueryState
            isPending={groups.isPending}
            error={groups.error}
            onRetry={() => void groups.refetch()}
            what="the groups"
          />
          {groups.data && (
            <Table
              rowKey="name"
              dataSource={rows}
              pagination={{ pageSize: 25, hideOnSinglePage: true }}
              columns={[
                {
                  title: 'Name',
                  dataIndex: 'name',
                  defaultSortOrder: 'ascend',
                  sorter: (a, b) => a.name.localeCompare(b.name),
                  render: (name: string) => (
                    <Link to={`/admin/management/groups/${encodeURIComponent(name)}/edit`}>{name}</Link>
                  ),
                },
                {
                  title: 'Actions',
                  key: 'actions',
                  width: 120,
                  render: (_, group) => (
                    <Popconfirm
                      title={`Delete group ${group.name}?`}
                      okText="Delete"
                      okButtonProps={{ danger: true }}
                      onConfirm={() =>
                        remove.mutateAsync(group.name).then(
                          () => message.success(`Group ${group.name} deleted`),
                          (error: Error) => message.error(error.message),
                        )
                      }
                    >
                      <Button size="small" danger aria-label={`Delete ${group.name}`}>
                        Delete
                      </Button>
                    </Popconfirm>
                  ),
                },
              ]}
            />
          )}
        </Flex>
      </Card>
    </AdminPage>
  );
}
