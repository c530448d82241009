import { PlusOutlined } from '@ant-design/icons';
import { useQuery } from '@tanstack/react-query';
import { App, Button, Card, Flex, Input, Popconfirm, Table, Tag } from 'antd';
import { useMemo, useState } from 'react';
import { Link, useNavigate } from 'react-router';
import { AdminPage, QueryState } from '../components/AdminPage.tsx';
import { useDeleteUserMutation, usersQueryOptions } from '../queries.ts';

/** spec 000 §2 admin.management users list: search, sort by name, create, edit, delete. */
export function UsersPage() {
  const users = useQuery(usersQueryOptions());
  const remove = useDeleteUserMutation();
  const { message } = App.useApp();
  const navigate = useNavigate();
  const [search, setSearch] = useState('');
  const rows = useMemo(() => {
    const term = search.trim().toLowerCase();
    return (users.data ?? []).filter((u) => u.name.toLowerCase().includes(term));
  }, [users.data, search]);

  return (
    <AdminPage
      title="Users"
      extra={
        <Button
          type="primary"
          icon={<PlusOutlined />}
          onClick={() => navigate('/admin/management/users/new')}
        >
          New User
        </Button>
      }
    >
      <Card variant="borderless">
        <Flex vertical gap="middle">
          <Input.Search
            aria-label="Search users"
            placeholder="Search users"
            allowClear
            value={search}
            onChange={(e) => setSearch(e.target.value)}
            style={{ maxWidth: 320 }}
          />
          <QueryState
            isPending={users.isPending}
            error={users.error}
            onRetry={() => void users.refetch()}
            what="the users"
          />
          {users.data && (
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
                    <Link to={`/admin/management/users/${encodeURIComponent(name)}/edit`}>{name}</Link>
                  ),
                },
                {
                  title: 'Realm',
                  dataIndex: 'realm',
                  sorter: (a, b) => a.realm.localeCompare(b.realm),
                  render: (realm: string) => <Tag>{realm}</Tag>,
                },
                {
                  title: 'Actions',
                  key: 'actions',
                  width: 120,
                  render: (_, user) => (
                    <Popconfirm
                      title={`Delete user ${user.name}?`}
                      okText="Delete"
                      okButtonProps={{ danger: true }}
                      onConfirm={() =>
                        remove.mutateAsync(user.name).then(
                          () => message.success(`User ${user.name} deleted`),
                          (error: Error) => message.error(error.message),
                        )
                      }
                    >
                      <Button size="small" danger aria-label={`Delete ${user.name}`}>
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
