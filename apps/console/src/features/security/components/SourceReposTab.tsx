import {
  GIT_VENDOR_DISPLAY_NAMES,
  type IntegrationRepositoryScan,
  ISSUE_SEVERITIES,
  type RepositoryFinding,
} from '@granary/contracts';
import { useQuery } from '@tanstack/react-query';
import { Empty, Flex, Table, Tag, Typography } from 'antd';
import { Link } from 'react-router';
import { QueryState } from '../../../shared/components/AdminPage.tsx';
import { formatDateTime } from '../securityRules.ts';
import { sourceRepoScansQueryOptions } from '../sourceRepoQueries.ts';
import { SeverityTag } from './SeverityTag.tsx';

const rowKey = (s: IntegrationRepositoryScan) => `${s.integrationKey}\n${s.repository}`;

/** Findings per severity, most severe first; a severity the advisory database does not name counts as Unknown. */
function severityCounts(findings: RepositoryFinding[]): { severity: string; count: number }[] {
  const counts = new Map<string, number>();
  for (const f of findings) {
    const severity = ISSUE_SEVERITIES.find((s) => s.toLowerCase() === f.severity.toLowerCase()) ?? 'Unknown';
    counts.set(severity, (counts.get(severity) ?? 0) + 1);
  }
  return ISSUE_SEVERITIES.filter((s) => counts.has(s)).map((severity) => ({
    severity,
    count: counts.get(severity) ?? 0,
  }));
}

function ScanDetails({ scan }: { scan: IntegrationRepositoryScan }) {
  const licences = [...new Set(scan.licenses.map((l) => l.license))].sort();
  return (
    <Flex vertical gap="small">
      {scan.error && <Typography.Text type="danger">Scan failed: {scan.error}</Typography.Text>}
      <Typography.Text type="secondary">
        {scan.components} components in {scan.manifests.length ? scan.manifests.join(', ') : 'no manifest'}
      </Typography.Text>
      <Table<RepositoryFinding>
        size="small"
        pagination={false}
        aria-label={`Findings of ${scan.repository}`}
        rowKey={(f) => `${f.manifest} ${f.package} ${f.version} ${f.advisoryId}`}
        dataSource={scan.findings}
        locale={{ emptyText: 'No vulnerabilities found' }}
        columns={[
          {
            title: 'Advisory',
            dataIndex: 'advisoryId',
            render: (id: string, f) => <span title={f.summary}>{id}</span>,
          },
          { title: 'Severity', dataIndex: 'severity', render: (s: string) => <SeverityTag severity={s} /> },
          { title: 'Package', dataIndex: 'package' },
          { title: 'Version', dataIndex: 'version' },
          {
            title: 'Fixed versions',
            dataIndex: 'fixedVersions',
            render: (v: string[]) => (v.length ? v.join(', ') : '—'),
          },
          { title: 'Manifest', dataIndex: 'manifest' },
        ]}
      />
      <div>
        <Typography.Text strong>Licences: </Typography.Text>
        {licences.length ? (
          licences.map((l) => <Tag key={l}>{l}</Tag>)
        ) : (
          <Typography.Text type="secondary">none found</Typography.Text>
        )}
      </div>
    </Flex>
  );
}

/**
 * Source Repositories (admin; issue 18 "Products per integration"): the latest scan of every git repository an
 * admin chose to scan on an integration with the xray product — a row per repository with its counts by
 * severity, expandable to the findings and licences. The server refuses the list to anyone else.
 */
export function SourceReposTab() {
  const query = useQuery(sourceRepoScansQueryOptions());
  return (
    <Flex vertical gap="middle">
      <Typography.Paragraph type="secondary" style={{ margin: 0 }}>
        Dependency manifests of the git repositories chosen on an integration (Manage Repositories), matched
        against the advisory database.
      </Typography.Paragraph>
      <QueryState
        isPending={query.isPending}
        error={query.error}
        onRetry={() => void query.refetch()}
        what="the source repository scans"
      />
      {query.data && (
        <Table<IntegrationRepositoryScan>
          aria-label="Source repository scans"
          rowKey={rowKey}
          dataSource={query.data}
          pagination={query.data.length > 25 ? { pageSize: 25 } : false}
          locale={{
            emptyText: (
              <Empty
                description={
                  <>
                    No source repositories are scanned yet. Choose them with Manage Repositories on a git
                    integration in <Link to="/integrations">Integrations</Link>.
                  </>
                }
              />
            ),
          }}
          expandable={{ expandedRowRender: (scan) => <ScanDetails scan={scan} /> }}
          columns={[
            {
              title: 'Integration',
              dataIndex: 'integrationName',
              render: (name: string, s) => (
                <Link
                  to={`/integrations/gitRepoScan/selectRepos?vcsType=${encodeURIComponent(s.vendorName)}&integrationId=${encodeURIComponent(s.integrationKey)}`}
                >
                  {name}
                </Link>
              ),
            },
            {
              title: 'Vendor',
              dataIndex: 'vendorName',
              render: (v: IntegrationRepositoryScan['vendorName']) => GIT_VENDOR_DISPLAY_NAMES[v],
            },
            { title: 'Repository', dataIndex: 'repository' },
            {
              title: 'Scanned at',
              dataIndex: 'scannedAt',
              render: (at: string | null, s) =>
                s.status === 'done'
                  ? formatDateTime(at)
                  : s.status === 'failed'
                    ? `Failed ${formatDateTime(at)}`
                    : s.status === 'running'
                      ? 'Scanning…'
                      : 'Queued',
            },
            {
              title: 'Vulnerabilities',
              key: 'severities',
              render: (_: unknown, s) => {
                const counts = severityCounts(s.findings);
                if (s.status !== 'done') return '—';
                if (!counts.length) return <Typography.Text type="secondary">None</Typography.Text>;
                return (
                  <Flex gap={4} wrap>
                    {counts.map((c) => (
                      <SeverityTag
                        key={c.severity}
                        severity={c.severity}
                        label={`${c.severity} ${c.count}`}
                      />
                    ))}
                  </Flex>
                );
              },
            },
          ]}
        />
      )}
    </Flex>
  );
}
