import {
  DEFAULT_VIOLATION_FILTER,
  VIOLATION_FILTERS,
  type Violation,
  type ViolationFilter,
} from '@granary/contracts';
import { useQuery } from '@tanstack/react-query';
import { Button, Empty, Flex, Input, Radio, Table, Tag, Typography } from 'antd';
import { useState } from 'react';
import { useSearchParams } from 'react-router';
import { QueryState } from '../../../shared/components/AdminPage.tsx';
import { SECURITY_QUERY_PAGE_SIZE, violationsQueryOptions } from '../queries.ts';
import { componentLabel, formatDateTime } from '../securityRules.ts';
import { IgnoreViolationModal } from './IgnoreViolationModal.tsx';
import { SeverityTag } from './SeverityTag.tsx';

const FILTER_LABELS: Record<ViolationFilter, string> = { active: 'Active', ignored: 'Ignored', all: 'All' };

const asFilter = (value: string | null): ViolationFilter =>
  (VIOLATION_FILTERS as readonly string[]).includes(value ?? '')
    ? (value as ViolationFilter)
    : DEFAULT_VIOLATION_FILTER;

/**
 * Violations (spec 001 §3/§4: the filter defaults to 'active' and can be changed; §9: 25 rows a page, ordered by
 * severity ascending — the server orders). Admins can ignore a violation once or always.
 */
export function ViolationsTab({ admin }: { admin: boolean }) {
  const [params, setParams] = useSearchParams();
  const filter = asFilter(params.get('filter'));
  const page = Math.max(1, Number(params.get('page')) || 1);
  const [search, setSearch] = useState(params.get('search') ?? '');
  const query = useQuery(violationsQueryOptions(filter, page, params.get('search') ?? ''));
  const [ignoring, setIgnoring] = useState<Violation | null>(null);

  const update = (changes: Record<string, string | null>) =>
    setParams(
      (prev) => {
        const next = new URLSearchParams(prev);
        for (const [k, v] of Object.entries(changes)) {
          if (v === null || v === '') next.delete(k);
          else next.set(k, v);
        }
        return next;
      },
      { replace: true },
    );

  return (
    <Flex vertical gap="middle">
      <Flex gap="middle" wrap align="center">
        <Radio.Group
          aria-label="Violations filter"
          optionType="button"
          value={filter}
          onChange={(e) =>
            update({
              filter: e.target.value === DEFAULT_VIOLATION_FILTER ? null : e.target.value,
              page: null,
            })
          }
          options={VIOLATION_FILTERS.map((f) => ({ value: f, label: FILTER_LABELS[f] }))}
        />
        <Input.Search
          aria-label="Search violations"
          placeholder="Issue, component or repository"
          allowClear
          value={search}
          onChange={(e) => setSearch(e.target.value)}
          onSearch={(value) => update({ search: value.trim() || null, page: null })}
          style={{ maxWidth: 320 }}
        />
      </Flex>
      <QueryState
        isPending={query.isPending}
        error={query.error}
        onRetry={() => void query.refetch()}
        what="the violations"
      />
      {query.data && (
        <Table<Violation>
          rowKey="id"
          size="middle"
          loading={query.isFetching}
          dataSource={query.data.rows}
          locale={{
            emptyText: (
              <Empty
                description={`No ${filter === 'all' ? '' : `${FILTER_LABELS[filter].toLowerCase()} `}violations`}
              />
            ),
          }}
          pagination={{
            current: page,
            pageSize: SECURITY_QUERY_PAGE_SIZE,
            total: query.data.total,
            showSizeChanger: false,
            hideOnSinglePage: true,
            onChange: (p) => update({ page: p === 1 ? null : String(p) }),
          }}
          columns={[
            { title: 'Severity', key: 'severity', render: (_, v) => <SeverityTag severity={v.severity} /> },
            {
              title: 'Issue',
              key: 'issue',
              render: (_, v) => (
                <Flex vertical>
                  <Typography.Text strong>{v.issueId}</Typography.Text>
                  <Typography.Text type="secondary">{v.summary}</Typography.Text>
                </Flex>
              ),
            },
            {
              title: 'Component',
              key: 'component',
              render: (_, v) => <span title={v.componentPurl}>{componentLabel(v.componentPurl)}</span>,
            },
            {
              title: 'Artifact',
              key: 'artifact',
              render: (_, v) => (
                <code className="security-path">
                  {v.repoKey}/{v.path}
                </code>
              ),
            },
            {
              title: 'Watch / policy',
              key: 'watch',
              render: (_, v) => (
                <Flex vertical>
                  <span>{v.watch}</span>
                  <Typography.Text type="secondary">
                    {v.policy} · {v.rule}
                  </Typography.Text>
                </Flex>
              ),
            },
            {
              title: 'State',
              key: 'state',
              render: (_, v) => (
                <Flex gap={4} wrap>
                  {v.ignored ? <Tag>ignored</Tag> : <Tag color="#0050b3">active</Tag>}
                  {v.blocking && !v.ignored && <Tag color="#a8071a">blocks download</Tag>}
                </Flex>
              ),
            },
            { title: 'Found', key: 'created', render: (_, v) => formatDateTime(v.created) },
            ...(admin
              ? [
                  {
                    title: 'Actions',
                    key: 'actions',
                    render: (_: unknown, v: Violation) =>
                      v.ignored ? null : (
                        <Button
                          size="small"
                          onClick={() => setIgnoring(v)}
                          aria-label={`Ignore ${v.issueId}`}
                        >
                          Ignore
                        </Button>
                      ),
                  },
                ]
              : []),
          ]}
        />
      )}
      <IgnoreViolationModal violation={ignoring} onClose={() => setIgnoring(null)} />
    </Flex>
  );
}
