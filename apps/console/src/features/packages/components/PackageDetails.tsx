import type { PackageVersionSummary } from '@granary/contracts';
import { useInfiniteQuery, useQuery } from '@tanstack/react-query';
import { Button, Card, Descriptions, Result, Space, Spin, Switch, Table, Tag, Typography } from 'antd';
import { useId } from 'react';
import { Link, useSearchParams } from 'react-router';
import { PackageTypeIcon } from '../../../shared/components/PackageTypeIcon.tsx';
import { formatBytes, formatDate, PACKAGE_MESSAGES, packagePath } from '../packageRules.ts';
import { packageQueryOptions, versionsQueryOptions } from '../queries.ts';
import { CopyableCommand } from './CopyableCommand.tsx';
import { Readme } from './Readme.tsx';
import { ScanState } from './ScanState.tsx';

/** spec 001 §2 package details: description, versions, stats, licences, tags, readme. */
export function PackageDetails({ packageId }: { packageId: string }) {
  const pkg = useQuery(packageQueryOptions(packageId));
  // spec 001 §5: "Only semver release versions are shown when that filter is on" (kept in the address).
  const [params, setParams] = useSearchParams();
  const releasesOnly = params.get('releases') === 'only';
  const releasesSwitch = useId();
  // every version (the latest's readme and lead file), and the list as filtered
  const allVersions = useInfiniteQuery(versionsQueryOptions(packageId));
  const releases = useInfiniteQuery({ ...versionsQueryOptions(packageId, true), enabled: releasesOnly });
  const versions = releasesOnly ? releases : allVersions;
  if (pkg.isPending) return <Spin />;
  if (!pkg.data) return <Result status="info" title={PACKAGE_MESSAGES.notYetAvailable} />;
  const p = pkg.data;
  const rowsOf = (q: typeof versions) =>
    q.isError ? [] : (q.data?.pages.flatMap((page) => page.edges.map((e) => e.node)) ?? []);
  const rows = rowsOf(versions);
  const everyVersion = rowsOf(allVersions);
  const latest = everyVersion.find((v) => v.name === p.latestVersion) ?? everyVersion[0];
  const lead = latest?.repos[0];
  // built by the server from the package's format (GraphQL `installCommand`)
  const command = p.installCommand;

  return (
    <>
      <Space align="center" size={12}>
        <PackageTypeIcon icon={p.packageType} size={32} />
        <h1 className="packages-title">{p.name}</h1>
        <Tag>{p.packageType}</Tag>
      </Space>
      {p.description && <Typography.Paragraph>{p.description}</Typography.Paragraph>}
      <Descriptions size="small" bordered column={{ xs: 1, md: 2, xl: 3 }}>
        <Descriptions.Item label="Latest version">
          {p.latestVersion ? <Link to={packagePath(p.id, p.latestVersion)}>{p.latestVersion}</Link> : '—'}
        </Descriptions.Item>
        <Descriptions.Item label="Versions">{p.versionsCount}</Descriptions.Item>
        <Descriptions.Item label="Downloads">{p.stats.downloads}</Descriptions.Item>
        <Descriptions.Item label="Licences">
          {p.licenses.length > 0 ? p.licenses.join(', ') : '—'}
        </Descriptions.Item>
        <Descriptions.Item label="Tags">
          {p.tags.length > 0 ? p.tags.map((t) => <Tag key={t}>{t}</Tag>) : '—'}
        </Descriptions.Item>
        <Descriptions.Item label="Last modified">{formatDate(p.modified)}</Descriptions.Item>
        <Descriptions.Item label="Repositories">
          {p.repos?.map((r) => r.name).join(', ') || '—'}
        </Descriptions.Item>
        <Descriptions.Item label="Security">
          <ScanState vulnerabilities={p.vulnerabilities} />
        </Descriptions.Item>
      </Descriptions>
      {command && <CopyableCommand command={command} />}
      <Card
        title={<h2 className="packages-subtitle">Versions</h2>}
        size="small"
        extra={
          <Space size={8}>
            <Switch
              id={releasesSwitch}
              size="small"
              checked={releasesOnly}
              onChange={(on) => {
                const next = new URLSearchParams(params);
                if (on) next.set('releases', 'only');
                else next.delete('releases');
                setParams(next, { replace: true });
              }}
            />
            <label htmlFor={releasesSwitch}>Release versions only</label>
          </Space>
        }
      >
        <Table<PackageVersionSummary>
          rowKey="name"
          size="small"
          loading={versions.isPending}
          dataSource={rows}
          pagination={false}
          locale={{ emptyText: releasesOnly ? PACKAGE_MESSAGES.noReleases : PACKAGE_MESSAGES.noPackages }}
          columns={[
            {
              title: 'Version',
              key: 'name',
              render: (_, v) => <Link to={packagePath(p.id, v.name)}>{v.name}</Link>,
            },
            { title: 'Repositories', key: 'repos', render: (_, v) => v.repos.map((r) => r.name).join(', ') },
            { title: 'Size', key: 'size', align: 'right', render: (_, v) => formatBytes(v.size) },
            { title: 'Downloads', key: 'downloads', align: 'right', render: (_, v) => v.stats.downloadCount },
            { title: 'Last modified', key: 'modified', render: (_, v) => formatDate(v.modified) },
            {
              title: 'Security',
              key: 'security',
              render: (_, v) => <ScanState vulnerabilities={v.vulnerabilities} />,
            },
          ]}
        />
        {versions.hasNextPage && (
          <div className="packages-more">
            <Button onClick={() => versions.fetchNextPage()} loading={versions.isFetchingNextPage}>
              Load more
            </Button>
          </div>
        )}
      </Card>
      {lead && (
        <Card title={<h2 className="packages-subtitle">Readme ({latest?.name})</h2>} size="small">
          <Readme repoKey={lead.name} path={lead.leadFilePath} />
        </Card>
      )}
    </>
  );
}
