import { PlusOutlined } from '@ant-design/icons';
import type { RetentionDryRun, RetentionPolicy } from '@granary/contracts';
import { useQuery } from '@tanstack/react-query';
import { App, Button, Empty, Modal, Popconfirm, Space, Table, Tag, Typography } from 'antd';
import { useState } from 'react';
import { Link, useNavigate } from 'react-router';
import { AdminPage, QueryState } from '../../../shared/components/AdminPage.tsx';
import { formatBytes, scheduleLabel } from '../policyForm.ts';
import {
  policiesQueryOptions,
  useDeletePolicyMutation,
  useDryRunMutation,
  useRunNowMutation,
} from '../queries.ts';

export const POLICIES_PATH = '/admin/repositories/cleanup-policies';
const enc = encodeURIComponent;

function LastRun({ policy }: { policy: RetentionPolicy }) {
  const r = policy.lastResult;
  if (!policy.lastRunAt || !r) return <Typography.Text type="secondary">Never</Typography.Text>;
  return (
    <Space size={4} wrap>
      <Typography.Text>{new Date(policy.lastRunAt).toLocaleString()}</Typography.Text>
      <Tag color={r.failed > 0 ? 'error' : 'default'}>
        {r.done} removed, {formatBytes(r.bytes)}
        {r.failed > 0 ? `, ${r.failed} failed` : ''}
      </Tag>
    </Space>
  );
}

function DryRunTable({ result }: { result: RetentionDryRun }) {
  return (
    <>
      <Typography.Paragraph>
        {result.count === 0
          ? 'Nothing would be removed now.'
          : `${result.count} item${result.count === 1 ? '' : 's'} would go, ${formatBytes(result.bytes)}${
              result.truncated ? ' (the first 1,000 are listed)' : ''
            }.`}
      </Typography.Paragraph>
      <Table
        size="small"
        rowKey={(c) => `${c.repoKey}/${c.paths.join(',')}`}
        dataSource={result.candidates}
        pagination={{ pageSize: 20, hideOnSinglePage: true }}
        locale={{ emptyText: <Empty description="Nothing to remove" /> }}
        columns={[
          { title: 'Repository', dataIndex: 'repoKey' },
          { title: 'Name', dataIndex: 'name' },
          { title: 'Version', dataIndex: 'version' },
          { title: 'Kind', dataIndex: 'kind', render: (k: string) => <Tag>{k}</Tag> },
          { title: 'Files', dataIndex: 'files', align: 'right' },
          { title: 'Size', dataIndex: 'bytes', align: 'right', render: (b: number) => formatBytes(b) },
          { title: 'Why', dataIndex: 'reason' },
        ]}
      />
    </>
  );
}

/** Issue 21: cleanup and retention policies — list, Dry run preview, Run now, delete. */
export function PoliciesPage() {
  // After Run now, the list is read again every 2 s until the policy's run is over (its last run changes),
  // so its outcome shows without a reload (for 5 minutes at most: a run that never ends stops the polling).
  const [running, setRunning] = useState<{ id: string; since: string | null; at: number } | null>(null);
  const stillRunning = (list: RetentionPolicy[] | undefined) =>
    running !== null &&
    Date.now() - running.at < 5 * 60_000 &&
    list?.find((p) => p.id === running.id)?.lastRunAt === running.since;
  const policies = useQuery({
    ...policiesQueryOptions(),
    refetchInterval: (query) => (stillRunning(query.state.data) ? 2000 : false),
  });
  const navigate = useNavigate();
  const { message } = App.useApp();
  const dryRun = useDryRunMutation();
  const runNow = useRunNowMutation();
  const remove = useDeletePolicyMutation();
  const [preview, setPreview] = useState<{ policy: RetentionPolicy; result: RetentionDryRun } | null>(null);

  const onDryRun = (policy: RetentionPolicy) =>
    dryRun.mutate(policy.id, {
      onSuccess: (result) => setPreview({ policy, result }),
      onError: (e) => message.error(e.message),
    });
  const onRunNow = (policy: RetentionPolicy) =>
    runNow.mutate(policy.id, {
      onSuccess: () => {
        setRunning({ id: policy.id, since: policy.lastRunAt, at: Date.now() });
        message.success(`Policy ${policy.name} is running in the background`);
      },
      onError: (e) => message.error(e.message),
    });

  return (
    <AdminPage
      title="Cleanup Policies"
      trail={[['Repositories', '/admin/repositories']]}
      extra={
        <Button type="primary" icon={<PlusOutlined />} onClick={() => navigate(`${POLICIES_PATH}/new`)}>
          New Policy
        </Button>
      }
    >
      <QueryState
        isPending={policies.isPending}
        error={policies.error}
        onRetry={() => policies.refetch()}
        what="cleanup policies"
      />
      {policies.data && (
        <Table
          rowKey="id"
          dataSource={policies.data}
          pagination={false}
          locale={{ emptyText: <Empty description="No cleanup policies yet" /> }}
          columns={[
            {
              title: 'Name',
              dataIndex: 'name',
              render: (name: string, p) => <Link to={`${POLICIES_PATH}/edit/${enc(p.id)}`}>{name}</Link>,
            },
            {
              title: 'Repositories',
              dataIndex: 'repositories',
              render: (r: string[], p) =>
                r.length === 0 && p.projectKey ? `Project ${p.projectKey}` : r.join(', '),
            },
            {
              title: 'Action',
              dataIndex: 'action',
              render: (a: string) => (
                <Tag color={a === 'archive' ? 'blue' : 'default'}>
                  {a === 'archive' ? 'Archive' : 'Delete (to trash)'}
                </Tag>
              ),
            },
            {
              title: 'Schedule',
              render: (_: unknown, p) => (p.enabled ? scheduleLabel(p.intervalHours) : 'Disabled'),
            },
            {
              title: 'Last run',
              render: (_: unknown, p) =>
                running?.id === p.id && stillRunning(policies.data) ? (
                  <Tag color="processing">Running…</Tag>
                ) : (
                  <LastRun policy={p} />
                ),
            },
            {
              title: 'Actions',
              render: (_: unknown, p) => (
                <Space>
                  <Button
                    size="small"
                    loading={dryRun.isPending && dryRun.variables === p.id}
                    onClick={() => onDryRun(p)}
                  >
                    Dry run
                  </Button>
                  <Popconfirm
                    title={`Run ${p.name} now? What it finds is ${p.action === 'archive' ? 'archived' : 'moved to the trash'}.`}
                    okText="Run now"
                    onConfirm={() => onRunNow(p)}
                  >
                    <Button size="small">Run now</Button>
                  </Popconfirm>
                  <Popconfirm
                    title={`Delete the policy ${p.name}?`}
                    okText="Delete"
                    okButtonProps={{ danger: true }}
                    onConfirm={() => remove.mutate(p.id, { onError: (e) => message.error(e.message) })}
                  >
                    <Button size="small" danger>
                      Delete
                    </Button>
                  </Popconfirm>
                </Space>
              ),
            },
          ]}
        />
      )}
      <Modal
        open={preview !== null}
        title={preview ? `Dry run of ${preview.policy.name}` : ''}
        width={1000}
        onCancel={() => setPreview(null)}
        footer={<Button onClick={() => setPreview(null)}>Close</Button>}
      >
        {preview && <DryRunTable result={preview.result} />}
      </Modal>
    </AdminPage>
  );
}
