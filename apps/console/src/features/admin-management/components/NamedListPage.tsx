import { PlusOutlined } from '@ant-design/icons';
import type { UseQueryResult } from '@tanstack/react-query';
import { App, Button, Card, Flex, Input, Popconfirm, Table, type TableColumnType } from 'antd';
import { useMemo, useState } from 'react';
import { Link, useNavigate } from 'react-router';
import { AdminPage, QueryState } from '../../../shared/components/AdminPage.tsx';

export interface NamedListPageProps<T extends { name: string }> {
  /** Page title, plural: "Users". */
  title: string;
  /** Singular, as in "New User" and "User x deleted": "User". */
  noun: string;
  /** Where "New …" leads. */
  createPath: string;
  /** Base of each item's edit route: `{base}/{name}/edit`. */
  editBase: string;
  query: UseQueryResult<T[]>;
  remove: { mutateAsync(name: string): Promise<unknown> };
  /** Columns between the name and the actions. */
  columns?: TableColumnType<T>[];
}

/**
 * spec 000 §2 admin.management lists (users, groups, permissions): search by name, sort by name,
 * create, edit, delete with confirmation.
 */
export function NamedListPage<T extends { name: string }>({
  title,
  noun,
  createPath,
  editBase,
  query,
  remove,
  columns = [],
}: NamedListPageProps<T>) {
  const { message } = App.useApp();
  const navigate = useNavigate();
  const [search, setSearch] = useState('');
  const rows = useMemo(() => {
    const term = search.trim().toLowerCase();
    return (query.data ?? []).filter((item) => item.name.toLowerCase().includes(term));
  }, [query.data, search]);
  const plural = title.toLowerCase();

  return (
    <AdminPage
      title={title}
      extra={
        <Button type="primary" icon={<PlusOutlined />} onClick={() => navigate(createPath)}>
          New {noun}
        </Button>
      }
    >
      <Card variant="borderless">
        <Flex vertical gap="middle">
          <Input.Search
            aria-label={`Search ${plural}`}
            placeholder={`Search ${plural}`}
            allowClear
            value={search}
            onChange={(e) => setSearch(e.target.value)}
            style={{ maxWidth: 320 }}
          />
          <QueryState
            isPending={query.isPending}
            error={query.error}
            onRetry={() => void query.refetch()}
            what={`the ${plural}`}
          />
          {query.data && (
            <Table<T>
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
                    <Link to={`${editBase}/${encodeURIComponent(name)}/edit`}>{name}</Link>
                  ),
                },
                ...columns,
                {
                  title: 'Actions',
                  key: 'actions',
                  width: 120,
                  render: (_, item) => (
                    <Popconfirm
                      title={`Delete ${noun.toLowerCase()} ${item.name}?`}
                      okText="Delete"
                      okButtonProps={{ danger: true }}
                      onConfirm={() =>
                        remove.mutateAsync(item.name).then(
                          () => message.success(`${noun} ${item.name} deleted`),
                          (error: Error) => message.error(error.message),
                        )
                      }
                    >
                      <Button size="small" danger aria-label={`Delete ${item.name}`}>
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
