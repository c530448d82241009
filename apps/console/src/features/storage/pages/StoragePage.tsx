import type { StorageSummary } from '@granary/contracts';
import { useQuery } from '@tanstack/react-query';
import { Alert, Card, Col, Flex, Input, Row, Skeleton, Statistic, Table, Typography } from 'antd';
import { lazy, Suspense, useState } from 'react';
import { Link } from 'react-router';
import { AdminPage, QueryState } from '../../../shared/components/AdminPage.tsx';
import { formatBytes } from '../bytes.ts';
import { ChartBoundary } from '../components/ChartBoundary.tsx';
import { GcPanel } from '../components/GcPanel.tsx';
import { QuotaUse } from '../components/QuotaUse.tsx';
import { storageHistoryQueryOptions, storageSummaryQueryOptions } from '../queries.ts';

/** The chart library loads with this page's charts only (the routes' JavaScript budgets stay as they are). */
const StorageCharts = lazy(() =>
  import('../components/StorageCharts.tsx').then((m) => ({ default: m.StorageCharts })),
);

export const STORAGE_PATH = '/admin/storage';
const HISTORY_DAYS = 30;

type RepoRow = StorageSummary['repositoriesSummaryList'][number];
type ProjectRow = StorageSummary['projectsSummaryList'][number];

function Totals({ s }: { s: StorageSummary }) {
  const b = s.binariesSummary;
  const items = [
    { title: 'Artifacts', value: formatBytes(b.artifactsSize), note: `${b.artifactsCount} files` },
    { title: 'Stored binaries', value: formatBytes(b.binariesSize), note: `${b.binariesCount} blobs` },
    {
      title: 'Deduplication saving',
      value: formatBytes(b.deduplicationSaving),
      note: `binaries are ${b.optimization} of artifacts`,
    },
    {
      title: 'Trash',
      value: s.trash ? formatBytes(s.trash.size) : 'Not counted',
      note: s.trash ? `${s.trash.count} files` : '',
    },
    {
      title: 'Archive',
      value: s.archive ? formatBytes(s.archive.size) : 'Not counted',
      note: s.archive ? `${s.archive.count} files` : '',
    },
    {
      title: 'Reclaimable',
      value: s.reclaimable ? formatBytes(s.reclaimable.bytes) : 'Not counted',
      note: s.reclaimable ? `${s.reclaimable.blobs} unreferenced blobs` : '',
    },
  ];
  return (
    <Row gutter={[16, 16]}>
      {items.map((i) => (
        <Col key={i.title} xs={12} md={8} xl={4}>
          <Card size="small">
            <Statistic title={i.title} value={i.value} />
            <Typography.Text type="secondary">{i.note}</Typography.Text>
          </Card>
        </Col>
      ))}
    </Row>
  );
}

const repoColumns = [
  {
    title: 'Repository',
    dataIndex: 'repoKey',
    key: 'repoKey',
    render: (key: string, r: RepoRow) =>
      r.repoType === 'LOCAL' ? (
        <Link to={`/admin/repositories/local/${encodeURIComponent(key)}/edit`}>{key}</Link>
      ) : (
        key
      ),
    sorter: (a: RepoRow, b: RepoRow) => a.repoKey.localeCompare(b.repoKey),
  },
  { title: 'Type', dataIndex: 'repoType', key: 'repoType' },
  { title: 'Package type', dataIndex: 'packageType', key: 'packageType' },
  { title: 'Project', dataIndex: 'projectKey', key: 'projectKey', render: (p: string | null) => p ?? '' },
  { title: 'Files', dataIndex: 'filesCount', key: 'filesCount', align: 'right' as const },
  {
    title: 'Used',
    dataIndex: 'usedSpace',
    key: 'usedSpace',
    align: 'right' as const,
    render: (n: number) => formatBytes(n),
    sorter: (a: RepoRow, b: RepoRow) => a.usedSpace - b.usedSpace,
    defaultSortOrder: 'descend' as const,
  },
  {
    title: 'Quota',
    key: 'quota',
    width: 220,
    render: (_: unknown, r: RepoRow) => (
      <QuotaUse used={r.usedSpace} quota={r.quotaBytes} state={r.quotaState} />
    ),
  },
];

const projectColumns = [
  { title: 'Project', dataIndex: 'projectKey', key: 'projectKey' },
  {
    title: 'Repositories',
    dataIndex: 'repositoriesCount',
    key: 'repositoriesCount',
    align: 'right' as const,
  },
  { title: 'Files', dataIndex: 'filesCount', key: 'filesCount', align: 'right' as const },
  {
    title: 'Used',
    dataIndex: 'usedSpace',
    key: 'usedSpace',
    align: 'right' as const,
    render: (n: number) => formatBytes(n),
  },
  {
    title: 'Quota',
    key: 'quota',
    width: 220,
    render: (_: unknown, p: ProjectRow) => (
      <QuotaUse used={p.usedSpace} quota={p.quotaBytes} state={p.quotaState} />
    ),
  },
];

/**
 * issue 21: the storage page — totals (deduplication, trash, archive, reclaimable), charts of use over time, by
 * package type and growth, the blob GC, and use against quotas per repository and project.
 */
export function StoragePage() {
  const summary = useQuery(storageSummaryQueryOptions());
  const history = useQuery(storageHistoryQueryOptions(HISTORY_DAYS));
  const s = summary.data;
  const [filter, setFilter] = useState('');
  const full = s
    ? [...s.repositoriesSummaryList, ...s.projectsSummaryList].filter((r) => r.quotaState !== 'ok')
    : [];
  return (
    <AdminPage
      title="Storage"
      extra={
        <Flex gap="middle">
          <Link to="/repos/trash">Trash Can</Link>
          <Link to="/admin/repositories/cleanup-policies">Cleanup Policies</Link>
          <Link to="/artifactoryRetention/search">Archive</Link>
        </Flex>
      }
    >
      {!s ? (
        <QueryState
          isPending={summary.isPending}
          error={summary.error}
          onRetry={() => summary.refetch()}
          what="the storage summary"
        />
      ) : (
        <>
          {full.length > 0 && (
            <Alert
              type="warning"
              showIcon
              title={`${full.length} ${full.length === 1 ? 'quota is' : 'quotas are'} over 80 %`}
              description={full
                .map((r) => ('repoKey' in r ? r.repoKey : `project ${r.projectKey}`))
                .join(', ')}
            />
          )}
          <Totals s={s} />
          {history.data ? (
            <ChartBoundary>
              <Suspense fallback={<Skeleton active />}>
                <StorageCharts summary={s} history={history.data} />
              </Suspense>
            </ChartBoundary>
          ) : (
            <QueryState
              isPending={history.isPending}
              error={history.error}
              onRetry={() => history.refetch()}
              what="the storage history"
            />
          )}
          <GcPanel />
          <Card title={<h2 className="card-heading">Repositories</h2>}>
            <Input.Search
              aria-label="Filter repositories"
              placeholder="Filter repositories"
              value={filter}
              onChange={(e) => setFilter(e.target.value)}
              style={{ maxWidth: 320, marginBottom: 12 }}
            />
            <Table<RepoRow>
              rowKey="repoKey"
              size="small"
              columns={repoColumns}
              dataSource={s.repositoriesSummaryList.filter(
                (r) => !filter.trim() || r.repoKey.toLowerCase().includes(filter.trim().toLowerCase()),
              )}
              pagination={{ pageSize: 20, hideOnSinglePage: true }}
            />
          </Card>
          {s.projectsSummaryList.length > 0 && (
            <Card title={<h2 className="card-heading">Projects</h2>}>
              <Table<ProjectRow>
                rowKey="projectKey"
                size="small"
                columns={projectColumns}
                dataSource={s.projectsSummaryList}
                pagination={false}
              />
            </Card>
          )}
        </>
      )}
    </AdminPage>
  );
}
