import { useQuery } from '@tanstack/react-query';
import { Breadcrumb, Empty, Flex, Table, Tag, Typography } from 'antd';
import { Link } from 'react-router';
import { ErrorAlert } from '../../../shared/components/ErrorAlert.tsx';
import { bundleVersionsQueryOptions } from '../queries.ts';
import { statusColour } from '../rules.ts';

/** Issue 19: a bundle's versions, with their status, files and the environments each reached. */
export function BundleVersions({ name, tabBase }: { name: string; tabBase: string }) {
  const versions = useQuery(bundleVersionsQueryOptions(name));
  return (
    <Flex vertical gap="middle">
      <Breadcrumb items={[{ title: <Link to={tabBase}>Release Bundles</Link> }, { title: name }]} />
      <Typography.Title level={2} style={{ margin: 0 }}>
        {name}
      </Typography.Title>
      {versions.error && <ErrorAlert error={versions.error} />}
      <Table
        rowKey="release_bundle_version"
        size="middle"
        loading={versions.isPending}
        dataSource={versions.data?.release_bundles ?? []}
        locale={{ emptyText: <Empty description="This bundle has no versions" /> }}
        columns={[
          {
            title: 'Version',
            key: 'version',
            render: (_, v) => (
              <Link
                to={`${tabBase}/${encodeURIComponent(name)}/${encodeURIComponent(v.release_bundle_version)}`}
              >
                {v.release_bundle_version}
              </Link>
            ),
          },
          {
            title: 'Status',
            key: 'status',
            render: (_, v) => <Tag color={statusColour(v.status)}>{v.status}</Tag>,
          },
          {
            title: 'Environments',
            key: 'environments',
            render: (_, v) => v.environments.map((e) => <Tag key={e}>{e}</Tag>),
          },
          { title: 'Files', dataIndex: 'file_count', key: 'files', align: 'right' },
          { title: 'Created by', dataIndex: 'created_by', key: 'by' },
          { title: 'Created', key: 'created', render: (_, v) => new Date(v.created).toLocaleString() },
        ]}
      />
    </Flex>
  );
}
