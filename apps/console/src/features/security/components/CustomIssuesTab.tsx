import { PlusOutlined } from '@ant-design/icons';
import type { CustomIssue } from '@granary/contracts';
import { useQuery } from '@tanstack/react-query';
import { App, Button, Empty, Flex, Popconfirm, Space, Table, Typography } from 'antd';
import { useState } from 'react';
import { QueryState } from '../../../shared/components/AdminPage.tsx';
import { customIssuesQueryOptions, useDeleteCustomIssueMutation } from '../xrayQueries.ts';
import { CustomIssueEditor } from './CustomIssueEditor.tsx';
import { SeverityTag } from './SeverityTag.tsx';

const componentsLabel = (issue: CustomIssue) =>
  issue.components
    .map((c) => {
      const versions = c.vulnerableVersions.join(', ');
      return `${c.ecosystem}/${c.name}${versions ? ` (${versions})` : ''}`;
    })
    .join('; ');

/**
 * Custom issues (spec 001 §7 custom issue CRUD; admin): advisories written by an admin and matched like imported
 * ones. Lists them; creates, edits and deletes.
 */
export function CustomIssuesTab() {
  const { message } = App.useApp();
  const query = useQuery(customIssuesQueryOptions());
  const remove = useDeleteCustomIssueMutation();
  const [editing, setEditing] = useState<CustomIssue | null | undefined>(undefined);
  return (
    <Flex vertical gap="middle">
      <Flex justify="flex-end">
        <Button type="primary" icon={<PlusOutlined />} onClick={() => setEditing(null)}>
          New custom issue
        </Button>
      </Flex>
      <QueryState
        isPending={query.isPending}
        error={query.error}
        onRetry={() => void query.refetch()}
        what="the custom issues"
      />
      {query.data && (
        <Table<CustomIssue>
          rowKey="id"
          size="middle"
          dataSource={query.data}
          pagination={{ pageSize: 25, hideOnSinglePage: true, showSizeChanger: false }}
          locale={{
            emptyText: (
              <Empty description="No custom issues yet. A custom issue flags versions of a component like an advisory." />
            ),
          }}
          columns={[
            { title: 'Severity', key: 'severity', render: (_, i) => <SeverityTag severity={i.severity} /> },
            {
              title: 'Issue',
              key: 'issue',
              render: (_, i) => (
                <Flex vertical>
                  <Typography.Text strong>{i.id}</Typography.Text>
                  <Typography.Text type="secondary">{i.summary}</Typography.Text>
                </Flex>
              ),
            },
            { title: 'CVEs', key: 'cves', render: (_, i) => i.cves.join(', ') || '—' },
            { title: 'Components', key: 'components', render: (_, i) => componentsLabel(i) },
            {
              title: 'Actions',
              key: 'actions',
              render: (_, i) => (
                <Space size="small">
                  <Button size="small" onClick={() => setEditing(i)} aria-label={`Edit custom issue ${i.id}`}>
                    Edit
                  </Button>
                  <Popconfirm
                    title={`Delete custom issue ${i.id}?`}
                    okText="Delete"
                    okButtonProps={{ danger: true }}
                    onConfirm={() =>
                      remove.mutateAsync(i.id).then(
                        () => message.success(`Custom issue ${i.id} deleted`),
                        (error: Error) => message.error(error.message),
                      )
                    }
                  >
                    <Button size="small" danger aria-label={`Delete custom issue ${i.id}`}>
                      Delete
                    </Button>
                  </Popconfirm>
                </Space>
              ),
            },
          ]}
        />
      )}
      <CustomIssueEditor
        open={editing !== undefined}
        issue={editing ?? null}
        onClose={() => setEditing(undefined)}
      />
    </Flex>
  );
}
