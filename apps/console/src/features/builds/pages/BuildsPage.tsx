import { useQuery } from '@tanstack/react-query';
import { Empty, Flex, Input, Table, Tag, Typography } from 'antd';
import { useState } from 'react';
import { Link, useSearchParams } from 'react-router';
import { ErrorAlert } from '../../../shared/components/ErrorAlert.tsx';
import { CiLinkNotice } from '../components/CiLinkNotice.tsx';
import { buildNamesQueryOptions } from '../queries.ts';

/**
 * Issue 19 / spec 001 §2 toolbar type builds → /builds: every build the user may read with its last run and
 * status, filtered by the search box (the toolbar's `q`). Old hash-based build links land here too (spec 000 §4,
 * `jenkinsRedirect=true`).
 */
export function BuildsPage() {
  const [params, setParams] = useSearchParams();
  const search = params.get('q') ?? '';
  const [text, setText] = useState(search);
  const builds = useQuery(buildNamesQueryOptions(search));
  return (
    <Flex vertical gap="middle">
      <Typography.Title level={1}>Builds</Typography.Title>
      <CiLinkNotice />
      <Input.Search
        aria-label="Search builds"
        placeholder="Search builds by name"
        allowClear
        value={text}
        onChange={(e) => setText(e.target.value)}
        onSearch={(value) => {
          const next = new URLSearchParams(params);
          if (value.trim()) next.set('q', value.trim());
          else next.delete('q');
          setParams(next);
        }}
        style={{ maxWidth: 420 }}
      />
      {builds.error && <ErrorAlert error={builds.error} />}
      <Table
        rowKey="name"
        size="middle"
        loading={builds.isPending}
        dataSource={builds.data ?? []}
        pagination={{ pageSize: 25, hideOnSinglePage: true }}
        locale={{
          emptyText: (
            <Empty
              description={
                search
                  ? `No build matches "${search}"`
                  : 'No builds yet: CI tools publish build info with PUT /api/build'
              }
            />
          ),
        }}
        columns={[
          {
            title: 'Build name',
            key: 'name',
            sorter: (a, b) => a.name.localeCompare(b.name),
            render: (_, b) => <Link to={`/builds/${encodeURIComponent(b.name)}`}>{b.name}</Link>,
          },
          {
            title: 'Last run',
            key: 'last',
            render: (_, b) => (
              <Link to={`/builds/${encodeURIComponent(b.name)}/${encodeURIComponent(b.lastBuildNumber)}`}>
                #{b.lastBuildNumber}
              </Link>
            ),
          },
          {
            title: 'Started',
            key: 'started',
            defaultSortOrder: 'descend',
            sorter: (a, b) => a.lastStartedAt.localeCompare(b.lastStartedAt),
            render: (_, b) => new Date(b.lastStartedAt).toLocaleString(),
          },
          {
            title: 'Status',
            key: 'status',
            render: (_, b) => (b.status ? <Tag color="blue">{b.status}</Tag> : <Tag>No status</Tag>),
          },
          { title: 'Runs', dataIndex: 'runs', key: 'runs', align: 'right' },
        ]}
      />
    </Flex>
  );
}
