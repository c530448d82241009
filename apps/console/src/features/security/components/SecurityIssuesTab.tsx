import type { securityIssueRowSchema } from '@granary/contracts';
import { useQuery } from '@tanstack/react-query';
import { Empty, Flex, Input, Spin, Table, Tag, Typography } from 'antd';
import { useState } from 'react';
import type { z } from 'zod';
import { QueryState } from '../../../shared/components/AdminPage.tsx';
import { SECURITY_QUERY_PAGE_SIZE, securityIssuesQueryOptions } from '../queries.ts';
import { componentLabel } from '../securityRules.ts';
import { watchesByIssueQueryOptions } from '../xrayQueries.ts';
import { SeverityTag } from './SeverityTag.tsx';

type IssueRow = z.infer<typeof securityIssueRowSchema>;

/** The watches that flagged an issue (spec 001 §7 watches by issue; admins — the server answers them only). */
function WatchesByIssue({ issueId }: { issueId: string }) {
  const query = useQuery(watchesByIssueQueryOptions(issueId));
  if (query.isPending) return <Spin size="small" aria-label={`Loading the watches of ${issueId}`} />;
  if (query.error)
    return <Typography.Text type="danger">Could not load the watches: {query.error.message}</Typography.Text>;
  return (
    <Flex gap={8} align="center" wrap aria-label={`Watches that flagged ${issueId}`} role="group">
      <Typography.Text>Watches that flagged {issueId}:</Typography.Text>
      {query.data.length === 0 ? (
        <Typography.Text type="secondary">no watch has a violation of it</Typography.Text>
      ) : (
        query.data.map((w) => <Tag key={w}>{w}</Tag>)
      )}
    </Flex>
  );
}

/**
 * Security issues: the vulnerabilities found in what the user may read, with CVEs, CVSS, artifacts and fixes (25 a
 * page). An admin expands an issue to see the watches that flagged it.
 */
export function SecurityIssuesTab({ admin = false }: { admin?: boolean }) {
  const [page, setPage] = useState(1);
  const [search, setSearch] = useState('');
  const [term, setTerm] = useState('');
  const query = useQuery(securityIssuesQueryOptions(page, search));
  return (
    <Flex vertical gap="middle">
      <Input.Search
        aria-label="Search security issues"
        placeholder="Issue id, CVE or component"
        allowClear
        value={term}
        onChange={(e) => setTerm(e.target.value)}
        onSearch={(value) => {
          setSearch(value.trim());
          setPage(1);
        }}
        style={{ maxWidth: 320 }}
      />
      <QueryState
        isPending={query.isPending}
        error={query.error}
        onRetry={() => void query.refetch()}
        what="the security issues"
      />
      {query.data && (
        <Table<IssueRow>
          rowKey="issueId"
          size="middle"
          loading={query.isFetching}
          dataSource={query.data.rows}
          locale={{ emptyText: <Empty description="No security issues found" /> }}
          expandable={
            admin
              ? { expandedRowRender: (r) => <WatchesByIssue issueId={r.issueId} />, columnTitle: 'Watches' }
              : undefined
          }
          pagination={{
            current: page,
            pageSize: SECURITY_QUERY_PAGE_SIZE,
            total: query.data.total,
            showSizeChanger: false,
            hideOnSinglePage: true,
            onChange: setPage,
          }}
          columns={[
            { title: 'Severity', key: 'severity', render: (_, r) => <SeverityTag severity={r.severity} /> },
            {
              title: 'Issue',
              key: 'issue',
              render: (_, r) => (
                <Flex vertical>
                  <Typography.Text strong>{r.issueId}</Typography.Text>
                  <Typography.Text type="secondary">{r.summary}</Typography.Text>
                </Flex>
              ),
            },
            { title: 'CVEs', key: 'cves', render: (_, r) => r.cves.join(', ') || '—' },
            {
              title: 'CVSS',
              key: 'cvss',
              align: 'right',
              render: (_, r) => (r.cvssScore === null ? '—' : r.cvssScore.toFixed(1)),
            },
            {
              title: 'Components',
              key: 'components',
              render: (_, r) => r.components.map(componentLabel).join(', '),
            },
            { title: 'Artifacts', dataIndex: 'artifacts', key: 'artifacts', align: 'right' },
            {
              title: 'Fixed versions',
              key: 'fixed',
              render: (_, r) => r.fixedVersions.join(', ') || 'none yet',
            },
          ]}
        />
      )}
    </Flex>
  );
}
