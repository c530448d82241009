import { PlusOutlined } from '@ant-design/icons';
import { useQuery } from '@tanstack/react-query';
import { App, Button, Card, Flex, Input, Popconfirm, Table } from 'antd';
import { useMemo, useState } from 'react';
import { Link, useNavigate } from 'react-router';
import { AdminPage, QueryState } from '../components/AdminPage.tsx';
import { permissionsQueryOptions, useDeletePermissionMutation } from '../queries.ts';

/** spec 000 §2 admin.management permissions list. */
export function PermissionsPage() {
  const permissions = useQuery(permissionsQueryOptions());
  const remove = useDeletePermissionMutation();
  const { message } = App.useApp();
  const navigate = useNavigate();
  const [search, setSearch] = useState('');
  const rows = useMemo(() => {
    const term = search.trim().toLowerCase();
    return (permissions.data ?? []).filter((p) => p.name.toLowerCase().includes(term));
  }, [permissions.data, search]);

  return (
    <AdminPage
      title="Permissions"
      extra={
        <Button
          type="primary"
          icon={<PlusOutlined />}
          onClick={() => navigate('/admin/management/permissions/create')}
        >
          New Permission
        </Button>
      }
    >
      <Card variant="borderless">
        <Flex vertical gap="middle">
          <Input.Search
            aria-label="Search permissions"
            placeholder="Search permissions"
            allowClear
            value={search}
            onChange={(e) => setSearch(e.target.value)}
            style={{ maxWidth: 320 }}
          />
          <QueryState
            isPending={permissions.isPending}
            error={permissions.error}
            onRetry={() => void permissions.refetch()}
            what="the permissions"
          />
          {permissions.data && (
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
                    <Link to={`/admin/management/permissions/${encodeURIComponent(name)}/edit`}>{name}</Link>
                  ),
                },
                {
                  title: 'Actions',
                  key: 'actions',
                  width: 120,
                  render: (_, target) => (
                    <Popconfirm
                      title={`Delete permission ${target.name}?`}
                      okText="Delete"
                      okButtonProps={{ danger: true }}
                      onConfirm={() =>
                        remove.mutateAsync(target.name).then(
                          () => message.success(`Permission ${target.name} deleted`),
                          (error: Error) => message.error(error.message),
                        )
                      }
                    >
                      <Button size="small" danger aria-label={`Delete ${target.name}`}>
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
