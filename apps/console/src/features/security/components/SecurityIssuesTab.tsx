import type { securityIssueRowSchema } from '@granary/contracts';
import { useQuery } from '@tanstack/react-query';
import { Empty, Flex, Input, Table, Typography } from 'antd';
import { useState } from 'react';
import type { z } from 'zod';
import { QueryState } from '../../../shared/components/AdminPage.tsx';
import { SECURITY_QUERY_PAGE_SIZE, securityIssuesQueryOptions } from '../queries.ts';
import { componentLabel } from '../securityRules.ts';
import { SeverityTag } from './SeverityTag.tsx';

type IssueRow = z.infer<typeof securityIssueRowSchema>;

/** Security issues: the vulnerabilities found in what the user may read, with CVEs, CVSS, artifacts and fixes (25 a page). */
export function SecurityIssuesTab() {
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
