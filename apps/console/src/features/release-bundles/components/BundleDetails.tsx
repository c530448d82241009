import { useQuery } from '@tanstack/react-query';
import {
  App,
  Breadcrumb,
  Button,
  Descriptions,
  Empty,
  Flex,
  Popconfirm,
  Space,
  Spin,
  Table,
  Tabs,
  Tag,
  Typography,
} from 'antd';
import { useState } from 'react';
import { Link, useNavigate } from 'react-router';
import { ErrorAlert } from '../../../shared/components/ErrorAlert.tsx';
import {
  bundleVersionQueryOptions,
  bundleVersionsQueryOptions,
  distributionsQueryOptions,
  promotionsQueryOptions,
  useDeleteBundleMutation,
  useRetryDistributionMutation,
} from '../queries.ts';
import { statusColour } from '../rules.ts';
import { DistributeBundleDialog } from './DistributeBundleDialog.tsx';
import { PromoteBundleDialog } from './PromoteBundleDialog.tsx';

const RECORDS = 'lifecycle/api/v2/release_bundle/records';

function formatBytes(n: number): string {
  if (n < 1024) return `${n} B`;
  const units = ['KB', 'MB', 'GB', 'TB'];
  let v = n / 1024;
  let i = 0;
  while (v >= 1024 && i < units.length - 1) {
    v /= 1024;
    i++;
  }
  return `${v.toFixed(1)} ${units[i]}`;
}

/**
 * Issue 19 bundle details: contents (every file with path and SHA-256), versions, promotions (who, when, where,
 * evidence), distributions per target with their status, and the signature with its key. Promote and distribute
 * from here (bundles made on this instance).
 */
export function BundleDetails({
  name,
  version,
  tabBase,
  admin,
  received,
}: {
  name: string;
  version: string;
  tabBase: string;
  admin: boolean;
  received: boolean;
}) {
  const { message } = App.useApp();
  const navigate = useNavigate();
  const bundle = useQuery(bundleVersionQueryOptions(name, version));
  const versions = useQuery(bundleVersionsQueryOptions(name));
  const promotions = useQuery(promotionsQueryOptions(name, version));
  const distributions = useQuery({ ...distributionsQueryOptions(name, version), enabled: !received });
  const retry = useRetryDistributionMutation(name, version);
  const remove = useDeleteBundleMutation();
  const [dialog, setDialog] = useState<'promote' | 'distribute' | null>(null);
  const b = bundle.data;
  const reached = b?.environments ?? [];
  const targetRows = (distributions.data ?? []).flatMap((d) =>
    d.targets.map((t) => ({ ...t, trackerId: d.tracker_id, by: d.distributed_by, at: d.distributed_at })),
  );

  return (
    <Flex vertical gap="middle">
      <Breadcrumb
        items={[
          { title: <Link to={tabBase}>Release Bundles</Link> },
          { title: <Link to={`${tabBase}/${encodeURIComponent(name)}`}>{name}</Link> },
          { title: version },
        ]}
      />
      <Flex justify="space-between" align="center" wrap gap="middle">
        <Typography.Title level={2} style={{ margin: 0 }}>
          {name} {version}
        </Typography.Title>
        {!received && b && (
          <Space>
            <Button type="primary" onClick={() => setDialog('promote')}>
              Promote
            </Button>
            <Button onClick={() => setDialog('distribute')}>Distribute</Button>
            {admin && (
              <Popconfirm
                title={`Delete ${name} ${version}?`}
                description="Its files stay where they were promoted."
                okText="Delete"
                okButtonProps={{ danger: true }}
                onConfirm={() =>
                  remove.mutate(
                    { name, version },
                    {
                      onSuccess: () => {
                        message.success(`${name} ${version} deleted`);
                        navigate(tabBase);
                      },
                    },
                  )
                }
              >
                <Button danger>Delete</Button>
              </Popconfirm>
            )}
          </Space>
        )}
      </Flex>
      {bundle.error && <ErrorAlert error={bundle.error} />}
      {remove.error && <ErrorAlert error={remove.error} />}
      {bundle.isPending && <Spin />}
      {b && (
        <Descriptions
          bordered
          size="small"
          column={{ xs: 1, md: 2 }}
          items={[
            {
              key: 'status',
              label: 'Status',
              children: <Tag color={statusColour(b.status)}>{b.status}</Tag>,
            },
            { key: 'source', label: 'Source type', children: b.source_type },
            { key: 'by', label: 'Created by', children: b.created_by },
            { key: 'created', label: 'Created', children: new Date(b.created).toLocaleString() },
            { key: 'files', label: 'Files', children: `${b.file_count} (${formatBytes(b.total_size)})` },
            {
              key: 'environments',
              label: 'Environments',
              children: reached.length ? reached.map((e) => <Tag key={e}>{e}</Tag>) : 'Not promoted yet',
            },
            {
              key: 'sha',
              label: 'Manifest SHA-256',
              children: (
                <Typography.Text code copyable>
                  {b.release_bundle_sha256}
                </Typography.Text>
              ),
            },
          ]}
        />
      )}
      {b && (
        <Tabs
          items={[
            {
              key: 'contents',
              label: `Contents (${b.files.length})`,
              children: (
                <Table
                  rowKey={(f) => `${f.repoKey}/${f.path}`}
                  size="small"
                  dataSource={b.files}
                  pagination={{ pageSize: 50, hideOnSinglePage: true }}
                  columns={[
                    { title: 'Repository', dataIndex: 'repoKey', key: 'repo' },
                    { title: 'Path', dataIndex: 'path', key: 'path' },
                    { title: 'Size', key: 'size', align: 'right', render: (_, f) => formatBytes(f.size) },
                    {
                      title: 'SHA-256',
                      key: 'sha256',
                      render: (_, f) => (
                        <Typography.Text code copyable={{ text: f.sha256 }}>
                          {f.sha256.slice(0, 16)}…
                        </Typography.Text>
                      ),
                    },
                  ]}
                />
              ),
            },
            {
              key: 'versions',
              label: 'Versions',
              children: (
                <Table
                  rowKey="release_bundle_version"
                  size="small"
                  pagination={false}
                  dataSource={versions.data?.release_bundles ?? []}
                  columns={[
                    {
                      title: 'Version',
                      key: 'v',
                      render: (_, v) =>
                        v.release_bundle_version === version ? (
                          <strong>{v.release_bundle_version}</strong>
                        ) : (
                          <Link
                            to={`${tabBase}/${encodeURIComponent(name)}/${encodeURIComponent(v.release_bundle_version)}`}
                          >
                            {v.release_bundle_version}
                          </Link>
                        ),
                    },
                    {
                      title: 'Status',
                      key: 's',
                      render: (_, v) => <Tag color={statusColour(v.status)}>{v.status}</Tag>,
                    },
                    { title: 'Created', key: 'c', render: (_, v) => new Date(v.created).toLocaleString() },
                  ]}
                />
              ),
            },
            {
              key: 'promotions',
              label: 'Promotions',
              children: (
                <Table
                  rowKey="id"
                  size="small"
                  pagination={false}
                  loading={promotions.isPending}
                  dataSource={promotions.data?.promotions ?? []}
                  locale={{ emptyText: <Empty description="Not promoted yet" /> }}
                  columns={[
                    { title: 'Environment', dataIndex: 'environment', key: 'env' },
                    {
                      title: 'Status',
                      key: 's',
                      render: (_, p) => <Tag color={statusColour(p.status)}>{p.status}</Tag>,
                    },
                    { title: 'Operation', dataIndex: 'operation', key: 'op' },
                    {
                      title: 'Repositories',
                      key: 'repos',
                      render: (_, p) => p.included_repository_keys.join(', '),
                    },
                    { title: 'By', dataIndex: 'created_by', key: 'by' },
                    { title: 'When', key: 'when', render: (_, p) => new Date(p.created).toLocaleString() },
                    {
                      title: 'Evidence',
                      key: 'messages',
                      render: (_, p) => p.messages.map((m) => <div key={m.text}>{m.text}</div>),
                    },
                  ]}
                />
              ),
            },
            ...(received
              ? []
              : [
                  {
                    key: 'distributions',
                    label: 'Distributions',
                    children: (
                      <Table
                        rowKey={(t) => `${t.trackerId}:${t.target}`}
                        size="small"
                        pagination={false}
                        loading={distributions.isPending}
                        dataSource={targetRows}
                        locale={{ emptyText: <Empty description="Not distributed yet" /> }}
                        columns={[
                          { title: 'Target', dataIndex: 'target', key: 'target' },
                          {
                            title: 'Status',
                            key: 'status',
                            render: (_, t) => (
                              <>
                                <Tag color={statusColour(t.status)}>{t.status}</Tag>
                                {t.reason && <Typography.Text type="danger">{t.reason}</Typography.Text>}
                              </>
                            ),
                          },
                          {
                            title: 'Files',
                            key: 'files',
                            render: (_, t) => `${t.files_done} / ${t.files_total}`,
                          },
                          {
                            title: 'Attempts',
                            dataIndex: 'attempts',
                            key: 'attempts',
                            align: 'right' as const,
                          },
                          { title: 'By', dataIndex: 'by', key: 'by' },
                          {
                            title: 'Updated',
                            key: 'updated',
                            render: (_, t) => new Date(t.updated).toLocaleString(),
                          },
                          {
                            title: '',
                            key: 'retry',
                            render: (_, t) =>
                              t.status === 'FAILED' ? (
                                <Button
                                  size="small"
                                  loading={retry.isPending}
                                  onClick={() => retry.mutate(t.trackerId)}
                                >
                                  Retry
                                </Button>
                              ) : null,
                          },
                        ]}
                      />
                    ),
                  },
                ]),
            {
              key: 'signature',
              label: 'Signature',
              children: (
                <Flex vertical gap="middle">
                  <Descriptions
                    bordered
                    size="small"
                    column={1}
                    items={[
                      {
                        key: 'key',
                        label: 'Signing key',
                        children: b.signature.key_name ?? '(not on this instance)',
                      },
                      {
                        key: 'id',
                        label: 'Key ID',
                        children: <Typography.Text code>{b.signature.key_id}</Typography.Text>,
                      },
                      {
                        key: 'fp',
                        label: 'Fingerprint',
                        children: <Typography.Text code>{b.signature.fingerprint}</Typography.Text>,
                      },
                    ]}
                  />
                  <Typography.Paragraph
                    copyable={{ text: b.signature.armored }}
                    aria-label="Detached signature"
                  >
                    <pre style={{ fontSize: 12, margin: 0 }}>{b.signature.armored}</pre>
                  </Typography.Paragraph>
                  <Space>
                    <Button
                      href={`/${RECORDS}/${encodeURIComponent(name)}/${encodeURIComponent(version)}/manifest`}
                      download="manifest.json"
                    >
                      Download manifest
                    </Button>
                    <Button
                      href={`/${RECORDS}/${encodeURIComponent(name)}/${encodeURIComponent(version)}/signature`}
                      download="signature.asc"
                    >
                      Download signature
                    </Button>
                  </Space>
                  <Typography.Text type="secondary">
                    Check it offline: download the manifest and this signature, then{' '}
                    <Typography.Text code>gpg --verify signature.asc manifest.json</Typography.Text>.
                  </Typography.Text>
                </Flex>
              ),
            },
          ]}
        />
      )}
      {dialog === 'promote' && (
        <PromoteBundleDialog
          name={name}
          version={version}
          reached={reached}
          onClose={() => setDialog(null)}
        />
      )}
      {dialog === 'distribute' && (
        <DistributeBundleDialog name={name} version={version} admin={admin} onClose={() => setDialog(null)} />
      )}
    </Flex>
  );
}
