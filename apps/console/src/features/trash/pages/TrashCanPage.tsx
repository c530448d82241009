import { BASE_PATH, type TrashItem } from '@granary/contracts';
import { useQuery } from '@tanstack/react-query';
import { App, Button, Card, Flex, Input, Popconfirm, Space, Table, Typography } from 'antd';
import { useState } from 'react';
import { Link, useNavigate } from 'react-router';
import { ErrorAlert } from '../../../shared/components/ErrorAlert.tsx';
import {
  trashSearchQueryOptions,
  useDeletePermanentlyMutation,
  useEmptyTrashMutation,
  useRestoreMutation,
} from '../queries.ts';

const sizeOf = (bytes: number) =>
  bytes < 1024
    ? `${bytes} B`
    : bytes < 1024 ** 2
      ? `${(bytes / 1024).toFixed(1)} KB`
      : `${(bytes / 1024 ** 2).toFixed(1)} MB`;
const when = (iso: string) => new Date(iso).toLocaleString();
const treeLink = (repoKey: string, path: string) =>
  `/repos/tree/General/${[repoKey, ...path.split('/')].map(encodeURIComponent).join('/')}`;

/**
 * A path that wraps only after a `/` (issue 21: the trash table broke names mid-word): each segment stays
 * whole (no break at its hyphens or dots either), with a break opportunity after every separator.
 */
export function PathText({ path }: { path: string }) {
  const segments = path.split('/');
  return (
    <span className="path-text">
      {segments.map((segment, i) => (
        // biome-ignore lint/suspicious/noArrayIndexKey: a path's segments, in order
        <span key={i}>
          <span style={{ whiteSpace: 'nowrap' }}>{i < segments.length - 1 ? `${segment}/` : segment}</span>
          {i < segments.length - 1 && <wbr />}
        </span>
      ))}
    </span>
  );
}

/**
 * The Trash Can (issue 21; spec 001 §3 actions Search Trash Can, Restore, Delete Permanently, Empty Trash Can):
 * what was deleted from repositories whose trash is on, until it expires. Buttons follow what the server says the
 * caller may do; the server checks again on every action, and its refusal (a restore onto a path another file
 * now holds: 409) is shown as it says it.
 */
export function TrashCanPage() {
  const { message } = App.useApp();
  const navigate = useNavigate();
  const [text, setText] = useState('');
  const [q, setQ] = useState('');
  const search = useQuery(trashSearchQueryOptions(q));
  const restore = useRestoreMutation();
  const clean = useDeletePermanentlyMutation();
  const empty = useEmptyTrashMutation();
  const failed = restore.error ?? clean.error ?? empty.error;

  const columns = [
    {
      title: 'Name',
      dataIndex: 'name',
      key: 'name',
      // issue 21: one line, never broken mid-word; a long name ends in an ellipsis, whole in its tooltip
      render: (name: string) => (
        <Typography.Text strong ellipsis={{ tooltip: name }} style={{ maxWidth: 240 }}>
          {name}
        </Typography.Text>
      ),
    },
    {
      title: 'Repository',
      dataIndex: 'repoKey',
      key: 'repoKey',
      render: (key: string) => <span style={{ whiteSpace: 'nowrap' }}>{key}</span>,
    },
    { title: 'Path', dataIndex: 'path', key: 'path', render: (path: string) => <PathText path={path} /> },
    { title: 'Size', dataIndex: 'size', key: 'size', render: sizeOf },
    { title: 'Deleted by', dataIndex: 'deletedBy', key: 'deletedBy' },
    { title: 'Deleted', dataIndex: 'deletedAt', key: 'deletedAt', render: when },
    { title: 'Expires', dataIndex: 'expiresAt', key: 'expiresAt', render: when },
    {
      title: 'Actions',
      key: 'actions',
      // always in view, whatever the table's width
      fixed: 'right' as const,
      render: (_: unknown, item: TrashItem) => (
        <Space wrap size={4}>
          {item.canRestore && (
            <Button
              size="small"
              aria-label={`Restore ${item.path}`}
              loading={restore.isPending && restore.variables?.path === item.path}
              onClick={() => {
                clean.reset();
                empty.reset();
                restore.mutate(item, {
                  // The message renders outside the router (antd's App holder), so no <Link> there: a
                  // plain link that navigates through the page's own navigate (issue 21: a <Link> crashed it).
                  onSuccess: () =>
                    void message.success(
                      <span>
                        Restored{' '}
                        <a
                          href={`${BASE_PATH.replace(/\/+$/, '')}${treeLink(item.repoKey, item.path)}`}
                          onClick={(e) => {
                            e.preventDefault();
                            navigate(treeLink(item.repoKey, item.path));
                          }}
                        >{`${item.repoKey}/${item.path}`}</a>
                      </span>,
                    ),
                });
              }}
            >
              Restore
            </Button>
          )}
          {item.canDelete && (
            <Popconfirm
              title={`Delete ${item.name} permanently?`}
              description="It cannot be restored afterwards."
              okText="Delete Permanently"
              okButtonProps={{ danger: true }}
              onConfirm={() => {
                restore.reset();
                empty.reset();
                return clean
                  .mutateAsync(item)
                  .then(() => void message.success(`${item.name} deleted permanently`));
              }}
            >
              <Button size="small" danger aria-label={`Delete ${item.path} permanently`}>
                Delete Permanently
              </Button>
            </Popconfirm>
          )}
        </Space>
      ),
    },
  ];

  return (
    <Flex vertical gap="middle">
      <Flex justify="space-between" align="center">
        <Typography.Title level={1} style={{ margin: 0, fontSize: 26 }}>
          Trash Can
        </Typography.Title>
        <Space>
          <Link to="/repos/tree/General">Back to Artifacts</Link>
          {search.data?.canEmpty && (
            <Popconfirm
              title="Empty Trash Can?"
              description="Every file in the trash of every repository is deleted permanently."
              okText="Empty Trash Can"
              okButtonProps={{ danger: true }}
              onConfirm={() => {
                restore.reset();
                clean.reset();
                return empty
                  .mutateAsync(undefined)
                  .then((answer) => void message.success(`Trash emptied: ${answer.files} file(s) deleted`));
              }}
            >
              <Button danger>Empty Trash Can</Button>
            </Popconfirm>
          )}
        </Space>
      </Flex>
      <Card variant="borderless">
        <Flex vertical gap="middle">
          <Input.Search
            aria-label="Search Trash Can"
            placeholder="Search Trash Can: a name or part of a path (* and ? are wildcards)"
            enterButton="Search"
            value={text}
            onChange={(e) => setText(e.target.value)}
            onSearch={(value) => setQ(value.trim())}
          />
          {failed && <ErrorAlert title="The action was refused" error={failed} />}
          {search.isError && <ErrorAlert title="Could not search the trash" error={search.error} />}
          <Table<TrashItem>
            rowKey={(item) => `${item.repoKey}/${item.path}`}
            loading={search.isPending}
            dataSource={search.data?.results ?? []}
            columns={columns}
            // wide rows scroll inside the card instead of running past it (the actions column did at 1280 px)
            scroll={{ x: 'max-content' }}
            pagination={{ pageSize: 50, hideOnSinglePage: true }}
            locale={{ emptyText: q ? `Nothing in the trash matches "${q}"` : 'The trash is empty' }}
            size="middle"
          />
          {search.data?.truncated && (
            <Typography.Text type="secondary">More entries match: narrow the search.</Typography.Text>
          )}
        </Flex>
      </Card>
    </Flex>
  );
}
