import { useQuery } from '@tanstack/react-query';
import { Descriptions, Empty, Result, Space, Spin, Table, Tabs, Tag, Typography } from 'antd';
import { Link } from 'react-router';
import { PackageTypeIcon } from '../../../shared/components/PackageTypeIcon.tsx';
import {
  formatBytes,
  formatDate,
  isDockerPackageType,
  openingTab,
  PACKAGE_MESSAGES,
  packagePath,
  shortDigest,
} from '../packageRules.ts';
import {
  buildsQueryOptions,
  dependenciesQueryOptions,
  dockerLayersQueryOptions,
  propertiesQueryOptions,
  versionQueryOptions,
} from '../queries.ts';
import { CopyableCommand } from './CopyableCommand.tsx';
import { Readme } from './Readme.tsx';
import { ScanState } from './ScanState.tsx';
import { VersionSecurity } from './VersionSecurity.tsx';

function Properties({ repoKey, path }: { repoKey: string; path: string }) {
  const props = useQuery(propertiesQueryOptions(repoKey, path));
  return (
    <Table
      rowKey="name"
      size="small"
      loading={props.isPending}
      pagination={false}
      dataSource={props.data ?? []}
      locale={{ emptyText: <Empty description="No properties" /> }}
      columns={[
        { title: 'Property', dataIndex: 'name', key: 'name' },
        { title: 'Values', key: 'values', render: (_, p) => p.values.join(', ') },
      ]}
    />
  );
}

function Dependencies({ repoKey, path }: { repoKey: string; path: string }) {
  const deps = useQuery(dependenciesQueryOptions(repoKey, path));
  return (
    <Table
      rowKey={(d) => `${d.scope ?? ''}:${d.name}`}
      size="small"
      loading={deps.isPending}
      pagination={false}
      dataSource={deps.data ?? []}
      locale={{ emptyText: <Empty description="No dependencies" /> }}
      columns={[
        { title: 'Name', dataIndex: 'name', key: 'name' },
        { title: 'Range', key: 'range', render: (_, d) => d.range ?? '' },
        { title: 'Scope', key: 'scope', render: (_, d) => d.scope ?? '' },
      ]}
    />
  );
}

/** Issue 19: the builds that produced the version's lead file or used it as a dependency. */
function Builds({ repoKey, path }: { repoKey: string; path: string }) {
  const builds = useQuery(buildsQueryOptions(repoKey, path));
  return (
    <Table
      rowKey={(b) => `${b.name}#${b.number}`}
      size="small"
      loading={builds.isPending}
      pagination={false}
      dataSource={builds.data ?? []}
      locale={{ emptyText: <Empty description={PACKAGE_MESSAGES.noBuilds} /> }}
      columns={[
        {
          title: 'Build',
          key: 'name',
          render: (_, b) => (
            <Link to={`/builds/${encodeURIComponent(b.name)}/${encodeURIComponent(b.number)}`}>{b.name}</Link>
          ),
        },
        { title: 'Number', dataIndex: 'number', key: 'number' },
        { title: 'Role', key: 'role', render: (_, b) => (b.role === 'produced' ? 'Produced' : 'Used') },
        { title: 'Started', key: 'started', render: (_, b) => formatDate(b.started) },
      ]}
    />
  );
}

/** spec 001 §7 docker layers: each layer's digest, size, media type and the command that made it; the total. */
function DockerLayers({ repoKey, path }: { repoKey: string; path: string }) {
  const answer = useQuery(dockerLayersQueryOptions(repoKey, path));
  const data = answer.data;
  return (
    <>
      {data && data.layers.length > 0 && (
        <p className="packages-layers-total">
          {data.layers.length} layer{data.layers.length === 1 ? '' : 's'}, total size{' '}
          <strong>{formatBytes(data.totalSize)}</strong>
          {data.config && (
            <>
              {' '}
              (config <code title={data.config.digest}>{shortDigest(data.config.digest)}</code>,{' '}
              {formatBytes(data.config.size)})
            </>
          )}
        </p>
      )}
      <Table
        rowKey="index"
        size="small"
        loading={answer.isPending}
        pagination={false}
        dataSource={data?.layers ?? []}
        locale={{ emptyText: <Empty description={PACKAGE_MESSAGES.noLayers} /> }}
        columns={[
          { title: '#', key: 'index', width: 48, render: (_, l) => l.index + 1 },
          {
            title: 'Digest',
            key: 'digest',
            render: (_, l) => <code title={l.digest}>{shortDigest(l.digest)}</code>,
          },
          { title: 'Size', key: 'size', align: 'right', render: (_, l) => formatBytes(l.size) },
          { title: 'Media type', dataIndex: 'mediaType', key: 'mediaType' },
          {
            title: 'Command',
            key: 'command',
            render: (_, l) =>
              l.command ? (
                <code className="packages-layer-command">{l.command}</code>
              ) : (
                <Typography.Text type="secondary">—</Typography.Text>
              ),
          },
        ]}
      />
    </>
  );
}

const treePath = (repoKey: string, path: string) =>
  `/repos/tree/General/${encodeURIComponent(repoKey)}/${path.split('/').map(encodeURIComponent).join('/')}`;

/** spec 001 §2 version details: readme or properties first (the lead file rule), files, dependencies, install. */
export function VersionDetails({ packageId, versionId }: { packageId: string; versionId: string }) {
  const version = useQuery(versionQueryOptions(packageId, versionId));
  if (version.isPending) return <Spin />;
  if (!version.data) return <Result status="info" title={PACKAGE_MESSAGES.notYetAvailable} />;
  const v = version.data;
  const lead = v.repos[0];
  const packageName = packageId.replace(/^[^:]+:\/\//, '');
  const packageType = packageId.split('://')[0] ?? '';
  const files = v.files ?? [];

  return (
    <>
      <Space align="center" size={12}>
        <PackageTypeIcon icon={packageType} size={32} />
        <h1 className="packages-title">
          {packageName} <span className="packages-version">{v.name}</span>
        </h1>
      </Space>
      {v.description && <p>{v.description}</p>}
      <Descriptions size="small" bordered column={{ xs: 1, md: 2, xl: 3 }}>
        <Descriptions.Item label="Package">
          <Link to={packagePath(packageId)}>{packageName}</Link>
        </Descriptions.Item>
        <Descriptions.Item label="Size">{formatBytes(v.size)}</Descriptions.Item>
        <Descriptions.Item label="Downloads">{v.stats.downloadCount}</Descriptions.Item>
        <Descriptions.Item label="Licences">{v.licenses.join(', ') || '—'}</Descriptions.Item>
        <Descriptions.Item label="Created">{formatDate(v.created)}</Descriptions.Item>
        <Descriptions.Item label="Security">
          <ScanState vulnerabilities={v.vulnerabilities} />
        </Descriptions.Item>
        <Descriptions.Item label="Repositories" span={3}>
          {v.repos.map((r) => (
            <Tag key={r.name}>
              <Link to={treePath(r.name, r.leadFilePath)}>
                {r.name}/{r.leadFilePath}
              </Link>
            </Tag>
          ))}
        </Descriptions.Item>
      </Descriptions>
      {v.installCommand && <CopyableCommand command={v.installCommand} />}
      {lead && (
        <Tabs
          key={`${packageId}@${v.name}`}
          defaultActiveKey={openingTab(lead.leadFilePath)}
          items={[
            {
              key: 'readme',
              label: 'Readme',
              children: <Readme repoKey={lead.name} path={lead.leadFilePath} />,
            },
            {
              key: 'properties',
              label: 'Properties',
              children: <Properties repoKey={lead.name} path={lead.leadFilePath} />,
            },
            {
              key: 'files',
              label: `Files (${files.length})`,
              children: (
                <Table
                  rowKey="name"
                  size="small"
                  pagination={false}
                  dataSource={files}
                  columns={[
                    {
                      title: 'Name',
                      key: 'name',
                      render: (_, f) => (
                        <>
                          {f.name} {f.lead && <Tag color="#1f5f3a">lead</Tag>}
                        </>
                      ),
                    },
                    {
                      title: 'Size',
                      key: 'size',
                      align: 'right',
                      render: (_, f) => <span className="packages-nowrap">{formatBytes(f.size)}</span>,
                    },
                    {
                      title: 'Checksums',
                      key: 'checksums',
                      render: (_, f) => (
                        <dl className="packages-checksum">
                          <dt>SHA-256</dt>
                          <dd>{f.sha256}</dd>
                          <dt>SHA-1</dt>
                          <dd>{f.sha1}</dd>
                          <dt>MD5</dt>
                          <dd>{f.md5}</dd>
                        </dl>
                      ),
                    },
                    { title: 'Type', key: 'mime', render: (_, f) => f.mimeType ?? '' },
                  ]}
                />
              ),
            },
            {
              key: 'dependencies',
              label: 'Dependencies',
              children: <Dependencies repoKey={lead.name} path={lead.leadFilePath} />,
            },
            {
              key: 'builds',
              label: 'Builds',
              children: <Builds repoKey={lead.name} path={lead.leadFilePath} />,
            },
            {
              key: 'security',
              label: 'Security',
              children: <VersionSecurity repoKey={lead.name} path={lead.leadFilePath} />,
            },
            // spec 001 §7 docker layers: images only.
            ...(isDockerPackageType(packageType)
              ? [
                  {
                    key: 'layers',
                    label: 'Docker Layers',
                    children: <DockerLayers repoKey={lead.name} path={lead.leadFilePath} />,
                  },
                ]
              : []),
          ]}
        />
      )}
    </>
  );
}
