import type { ComponentSearchRow } from '@granary/contracts';
import { useQuery } from '@tanstack/react-query';
import { Empty, Flex, Table, Tag, Typography } from 'antd';
import { useState } from 'react';
import { Link, Navigate, useSearchParams } from 'react-router';
import { QueryState } from '../../../shared/components/AdminPage.tsx';
import { useSession } from '../../../shared/session/SessionProvider.tsx';
import { pageTitle } from '../../../shared/session/shellContext.ts';
import { SeverityTag } from '../components/SeverityTag.tsx';
import { formatDateTime } from '../securityRules.ts';
import { componentSearchQueryOptions, XRAY_SEARCH_PAGE_SIZE } from '../xrayQueries.ts';
import { artifactTreePath, componentLink, severityCounts } from '../xraySearchRules.ts';
import '../security.css';

/**
 * The toolbar's "Xray security and compliance" search results (spec 001 §2; §7 `POST
 * /xray/ui/component/paginatedsearch`; §9: 20 rows a page, in the server's order — last updated first): the
 * scanned components whose name, purl, issue id or CVE contains the text, among what the user may read.
 */
export function XraySearchPage() {
  const session = useSession();
  const [params] = useSearchParams();
  const text = (params.get('q') ?? '').trim();
  const [paging, setPaging] = useState({ text, page: 1 });
  // A new search (the toolbar navigates here with another `q`) starts at page 1.
  const page = paging.text === text ? paging.page : 1;
  const query = useQuery(componentSearchQueryOptions(text, page));

  if (!session.loading && !(session.microservices.xray && session.entitlements?.entitlements.scanning)) {
    return <Navigate to="/security-and-compliance-teaser" replace />;
  }
  return (
    <Flex vertical gap="middle" className="xray-search-page">
      <title>{pageTitle('Security & Compliance search', session.generalConfig?.serverName)}</title>
      <Typography.Title level={1} style={{ margin: 0, fontSize: 26 }}>
        Security &amp; Compliance search
      </Typography.Title>
      {text === '' ? (
        <Empty description="Type a component, package URL, issue id or CVE in the search box" />
      ) : (
        <>
          <Typography.Text>
            {query.data
              ? `${query.data.total} ${query.data.total === 1 ? 'component' : 'components'} for “${text}”`
              : `Searching for “${text}”…`}
          </Typography.Text>
          <QueryState
            isPending={false}
            error={query.error}
            onRetry={() => void query.refetch()}
            what="the search results"
          />
          <Table<ComponentSearchRow>
            rowKey={(r) => `${r.repoKey}\u0000${r.path}\u0000${r.componentId}`}
            size="middle"
            loading={query.isFetching}
            dataSource={query.data?.rows ?? []}
            locale={{
              emptyText: <Empty description="No scanned components match, please refine your search" />,
            }}
            pagination={{
              current: page,
              pageSize: XRAY_SEARCH_PAGE_SIZE,
              total: query.data?.total ?? 0,
              showSizeChanger: false,
              hideOnSinglePage: true,
              onChange: (p) => setPaging({ text, page: p }),
            }}
            columns={[
              {
                title: 'Component',
                key: 'component',
                render: (_, r) => (
                  <Flex vertical gap={2}>
                    <Link to={componentLink(r)} title={r.componentId}>
                      {r.name}
                    </Link>
                    {r.issues.length > 0 && (
                      <Flex gap={4} wrap>
                        {r.issues.map((id) => (
                          <Tag key={id}>{id}</Tag>
                        ))}
                      </Flex>
                    )}
                  </Flex>
                ),
              },
              { title: 'Version', dataIndex: 'version', key: 'version' },
              { title: 'Type', dataIndex: 'pkgType', key: 'type' },
              {
                title: 'Repository and path',
                key: 'path',
                render: (_, r) => (
                  <Link to={artifactTreePath(r.repoKey, r.path)} className="security-path">
                    {r.repoKey}/{r.path}
                  </Link>
                ),
              },
              {
                title: 'Vulnerabilities',
                key: 'vulnerabilities',
                render: (_, r) => {
                  const counts = severityCounts(r.vulnerabilities);
                  return counts.length === 0 ? (
                    'none found'
                  ) : (
                    <Flex gap={4} wrap>
                      {counts.map(([severity, n]) => (
                        <SeverityTag key={severity} severity={severity} label={`${severity} ${n}`} />
                      ))}
                    </Flex>
                  );
                },
              },
              { title: 'Licences', key: 'licenses', render: (_, r) => r.licenses.join(', ') || '—' },
              { title: 'Last updated', key: 'lastUpdated', render: (_, r) => formatDateTime(r.lastUpdated) },
            ]}
          />
        </>
      )}
    </Flex>
  );
}
