import { useQuery } from '@tanstack/react-query';
import { App, Button, Empty, Flex, Popconfirm, Table, Tag } from 'antd';
import { QueryState } from '../../../shared/components/AdminPage.tsx';
import { type IgnoreRule, ignoreRulesQueryOptions, useDeleteIgnoreRuleMutation } from '../queries.ts';
import { formatDateTime } from '../securityRules.ts';

/** What an ignore rule matches, in words. */
export function filtersLabel(rule: IgnoreRule): string {
  const f = rule.ignore_filters;
  if (f.violation_id) return `violation ${f.violation_id} (once)`;
  const parts = [
    f.vulnerabilities?.length && `issues ${f.vulnerabilities.join(', ')}`,
    f.cves?.length && `CVEs ${f.cves.join(', ')}`,
    f.licenses?.length && `licences ${f.licenses.join(', ')}`,
    f.component?.length &&
      `components ${f.component.map((c) => (c.version ? `${c.name} ${c.version}` : c.name)).join(', ')}`,
    f.artifact?.length && `artifacts ${f.artifact.map((a) => a.path ?? a.name).join(', ')}`,
    f.repositories?.length && `repositories ${f.repositories.join(', ')}`,
    f.watches?.length && `watches ${f.watches.join(', ')}`,
    f.policies?.length && `policies ${f.policies.join(', ')}`,
  ].filter(Boolean);
  return parts.join('; ') || 'everything';
}

/** Ignore rules: what each lets through, why (justification), until when; delete (admin). */
export function IgnoreRulesTab() {
  const { message } = App.useApp();
  const query = useQuery(ignoreRulesQueryOptions());
  const remove = useDeleteIgnoreRuleMutation();
  return (
    <Flex vertical gap="middle">
      <QueryState
        isPending={query.isPending}
        error={query.error}
        onRetry={() => void query.refetch()}
        what="the ignore rules"
      />
      {query.data && (
        <Table<IgnoreRule>
          rowKey={(r) => r.id ?? `${r.notes}:${r.expiration_date}`}
          size="middle"
          dataSource={query.data}
          pagination={{ pageSize: 25, hideOnSinglePage: true, showSizeChanger: false }}
          locale={{ emptyText: <Empty description="No ignore rules" /> }}
          columns={[
            { title: 'Ignores', key: 'filters', render: (_, r) => filtersLabel(r) },
            { title: 'Justification', dataIndex: 'notes', key: 'notes' },
            {
              title: 'Expires',
              key: 'expires',
              render: (_, r) => (
                <Flex gap={6} wrap>
                  {formatDateTime(r.expiration_date)}
                  {r.is_expired && <Tag>expired</Tag>}
                </Flex>
              ),
            },
            { title: 'Author', key: 'author', render: (_, r) => r.author ?? '—' },
            { title: 'Created', key: 'created', render: (_, r) => formatDateTime(r.created) },
            {
              title: 'Actions',
              key: 'actions',
              render: (_, r) =>
                r.id ? (
                  <Popconfirm
                    title="Delete this ignore rule?"
                    description="What it let through becomes a violation again."
                    okText="Delete"
                    okButtonProps={{ danger: true }}
                    onConfirm={() =>
                      remove.mutateAsync(r.id as string).then(
                        () => message.success('Ignore rule deleted'),
                        (error: Error) => message.error(error.message),
                      )
                    }
                  >
                    <Button size="small" danger aria-label={`Delete ignore rule ${r.id}`}>
                      Delete
                    </Button>
                  </Popconfirm>
                ) : null,
            },
          ]}
        />
      )}
    </Flex>
  );
}
