import { PlusOutlined } from '@ant-design/icons';
import type { RepositoryListItem } from '@granary/contracts';
import { useQuery } from '@tanstack/react-query';
import { App, Button, Card, Flex, Input, Popconfirm, Select, Skeleton, Table, Tag } from 'antd';
import { useMemo, useState } from 'react';
import { Link, useNavigate } from 'react-router';
import { AdminPage } from '../../../shared/components/AdminPage.tsx';
import { ErrorAlert } from '../../../shared/components/ErrorAlert.tsx';
import { repositoryListQueryOptions, useDeleteRepositoryMutation } from '../queries.ts';

const TYPES = [
  { value: 'ALL', label: 'All types' },
  { value: 'LOCAL', label: 'Local' },
  { value: 'REMOTE', label: 'Remote' },
  { value: 'VIRTUAL', label: 'Virtual' },
];

export const editPath = (r: Pick<RepositoryListItem, 'key' | 'type'>) =>
  `/admin/repositories/${r.type.toLowerCase()}/${encodeURIComponent(r.key)}/edit`;

/** spec 000 §2 admin.repositories.list: filter by type and package type, edit, delete with confirmation. */
export function RepositoriesPage() {
  const repositories = useQuery(repositoryListQueryOptions());
  const remove = useDeleteRepositoryMutation();
  const { message } = App.useApp();
  const navigate = useNavigate();
  const [type, setType] = useState('ALL');
  const [packageType, setPackageType] = useState('ALL');
  const [search, setSearch] = useState('');
  const packageTypes = useMemo(
    () => [...new Set((repositories.data ?? []).map((r) => r.packageType))].sort(),
    [repositories.data],
  );
  const rows = useMemo(() => {
    const term = search.trim().toLowerCase();
    return (repositories.data ?? []).filter(
      (r) =>
        (type === 'ALL' || r.type === type) &&
        (packageType === 'ALL' || r.packageType === packageType) &&
        r.key.toLowerCase().includes(term),
    );
  }, [repositories.data, type, packageType, search]);

  return (
    <AdminPage
      title="Repositories"
      extra={
        <Button type="primary" icon={<PlusOutlined />} onClick={() => navigate('/admin/repositories/new')}>
          New Repository
        </Button>
      }
    >
      <Card variant="borderless">
        <Flex vertical gap="middle">
          <Flex wrap gap="middle">
            <Input.Search
              aria-label="Search repositories"
              placeholder="Search repositories"
              allowClear
              value={search}
              onChange={(e) => setSearch(e.target.value)}
              style={{ maxWidth: 280 }}
            />
            <Select
              aria-label="Repository type"
              value={type}
              onChange={setType}
              options={TYPES}
              style={{ width: 150 }}
            />
            <Select
              aria-label="Package type"
              value={packageType}
              onChange={setPackageType}
              style={{ width: 170 }}
              options={[
                { value: 'ALL', label: 'All package types' },
                ...packageTypes.map((p) => ({ value: p, label: p })),
              ]}
            />
          </Flex>
          {repositories.isError && (
            <ErrorAlert
              title="Could not load the repositories"
              error={repositories.error}
              action={
                <Button size="small" onClick={() => void repositories.refetch()}>
                  Retry
                </Button>
              }
            />
          )}
          {repositories.isPending && <Skeleton active />}
          {repositories.data && (
            <Table
              rowKey="key"
              dataSource={rows}
              pagination={{ pageSize: 25, hideOnSinglePage: true }}
              columns={[
                {
                  title: 'Repository Key',
                  dataIndex: 'key',
                  defaultSortOrder: 'ascend',
                  sorter: (a, b) => a.key.localeCompare(b.key),
                  render: (key: string, r) => <Link to={editPath(r)}>{key}</Link>,
                },
                {
                  title: 'Type',
                  dataIndex: 'type',
                  render: (t: string) => <Tag>{t.toLowerCase()}</Tag>,
                },
                { title: 'Package Type', dataIndex: 'packageType' },
                { title: 'URL', dataIndex: 'url', render: (u: string) => <code>{u}</code> },
                { title: 'Description', dataIndex: 'description' },
                {
                  title: 'Actions',
                  key: 'actions',
                  width: 120,
                  render: (_, r) => (
                    <Popconfirm
                      title={`Delete repository ${r.key}?`}
                      description="Every artifact in it is deleted too."
                      okText="Delete"
                      okButtonProps={{ danger: true }}
                      onConfirm={() =>
                        remove.mutateAsync(r.key).then(
                          () => message.success(`Repository ${r.key} deleted`),
                          (error: Error) => message.error(error.message),
                        )
                      }
                    >
                      <Button size="small" danger aria-label={`Delete ${r.key}`}>
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
