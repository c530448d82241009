import { useQuery } from '@tanstack/react-query';
import { App, Breadcrumb, Button, Checkbox, Empty, Flex, Modal, Space, Table, Tag, Typography } from 'antd';
import { useState } from 'react';
import { Link, useNavigate, useParams } from 'react-router';
import { ErrorAlert } from '../../../shared/components/ErrorAlert.tsx';
import { useSession } from '../../../shared/session/SessionProvider.tsx';
import { canManageBuilds, deleteRunsBody, formatDuration } from '../buildRules.ts';
import { CiLinkNotice } from '../components/CiLinkNotice.tsx';
import { RetentionDialog } from '../components/RetentionDialog.tsx';
import { buildHistoryQueryOptions, useDeleteBuildRunsMutation } from '../queries.ts';

/** Issue 19: a build's runs, newest first; users who may delete runs (with or without artifacts) and set retention. */
export function BuildRunsPage() {
  const { buildName = '' } = useParams();
  const session = useSession();
  const navigate = useNavigate();
  const { message } = App.useApp();
  const history = useQuery(buildHistoryQueryOptions(buildName));
  const [selected, setSelected] = useState<string[]>([]);
  const [confirming, setConfirming] = useState(false);
  const [deleteArtifacts, setDeleteArtifacts] = useState(false);
  const [retention, setRetention] = useState(false);
  const remove = useDeleteBuildRunsMutation();
  const manage = canManageBuilds(session.user);
  const runs = history.data?.runs ?? [];
  const all = runs.map((r) => r.number);

  const onDelete = () => {
    const body = deleteRunsBody(buildName, selected, all, deleteArtifacts);
    remove.mutate(body, {
      onSuccess: () => {
        message.success(
          body.deleteAll ? `Build ${buildName} deleted` : `${selected.length} run(s) of ${buildName} deleted`,
        );
        setConfirming(false);
        setSelected([]);
        if (body.deleteAll) navigate('/builds');
      },
    });
  };

  return (
    <Flex vertical gap="middle">
      <Breadcrumb items={[{ title: <Link to="/builds">Builds</Link> }, { title: buildName }]} />
      <Flex justify="space-between" align="center" wrap gap="middle">
        <Typography.Title level={1} style={{ margin: 0 }}>
          {buildName}
        </Typography.Title>
        {manage && (
          <Space>
            <Button onClick={() => setRetention(true)}>Retention…</Button>
            <Button danger disabled={selected.length === 0} onClick={() => setConfirming(true)}>
              Delete selected runs
            </Button>
          </Space>
        )}
      </Flex>
      <CiLinkNotice />
      {history.error && <ErrorAlert error={history.error} />}
      <Table
        rowKey="number"
        size="middle"
        loading={history.isPending}
        dataSource={runs}
        rowSelection={
          manage
            ? {
                selectedRowKeys: selected,
                onChange: (keys) => setSelected(keys.map(String)),
                getCheckboxProps: (r) => ({ 'aria-label': `Select run ${r.number}` }),
              }
            : undefined
        }
        locale={{ emptyText: <Empty description="This build has no runs" /> }}
        columns={[
          {
            title: 'Build number',
            key: 'number',
            render: (_, r) => (
              <Link to={`/builds/${encodeURIComponent(buildName)}/${encodeURIComponent(r.number)}`}>
                #{r.number}
              </Link>
            ),
          },
          { title: 'Started', key: 'started', render: (_, r) => new Date(r.startedAt).toLocaleString() },
          { title: 'Duration', key: 'duration', render: (_, r) => formatDuration(r.durationMillis) },
          { title: 'Agent', key: 'agent', render: (_, r) => r.agent ?? '' },
          {
            title: 'Status',
            key: 'status',
            render: (_, r) => (r.status ? <Tag color="blue">{r.status}</Tag> : <Tag>No status</Tag>),
          },
          { title: 'Artifacts', dataIndex: 'artifacts', key: 'artifacts', align: 'right' },
          { title: 'Dependencies', dataIndex: 'dependencies', key: 'dependencies', align: 'right' },
          { title: 'Uploaded by', dataIndex: 'uploadedBy', key: 'uploadedBy' },
        ]}
      />
      <Modal
        open={confirming}
        title={`Delete ${selected.length === all.length ? 'every run' : `${selected.length} run(s)`} of ${buildName}?`}
        okText="Delete"
        okButtonProps={{ danger: true, loading: remove.isPending }}
        onOk={onDelete}
        onCancel={() => setConfirming(false)}
      >
        <Flex vertical gap="small">
          <Typography.Text>Runs: {selected.map((n) => `#${n}`).join(', ')}</Typography.Text>
          <Checkbox checked={deleteArtifacts} onChange={(e) => setDeleteArtifacts(e.target.checked)}>
            Also delete the artifacts these runs published
          </Checkbox>
          {remove.error && <ErrorAlert error={remove.error} />}
        </Flex>
      </Modal>
      {retention && <RetentionDialog name={buildName} runs={all} onClose={() => setRetention(false)} />}
    </Flex>
  );
}
