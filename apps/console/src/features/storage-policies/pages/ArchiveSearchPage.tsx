import type { ArchivedArtifact } from '@granary/contracts';
import { useQuery } from '@tanstack/react-query';
import { Alert, App, Button, Empty, Flex, Input, Space, Table, Typography } from 'antd';
import { useState } from 'react';
import { useSearchParams } from 'react-router';
import { QueryState } from '../../../shared/components/AdminPage.tsx';
import { formatBytes } from '../policyForm.ts';
import { archiveSearchQueryOptions, useRestoreMutation, useRetentionEnabled } from '../queries.ts';

/**
 * spec 001 §2 Archive search results (`/artifactoryRetention/search?q=`): archived files by name or path,
 * repository and archive date; Restore puts the chosen ones back at their paths.
 */
export function ArchiveSearchPage() {
  const [params, setParams] = useSearchParams();
  const retention = useRetentionEnabled();
  const { message } = App.useApp();
  const restore = useRestoreMutation();
  const [selected, setSelected] = useState<string[]>([]);
  const search = {
    q: params.get('q') ?? '',
    repo: params.get('repo') ?? '',
    from: params.get('from') ?? '',
    to: params.get('to') ?? '',
  };
  const results = useQuery({ ...archiveSearchQueryOptions(search), enabled: retention.enabled });
  const set = (key: keyof typeof search, value: string) => {
    const next = new URLSearchParams(params);
    if (value) next.set(key, value);
    else next.delete(key);
    setParams(next, { replace: true });
  };

  const onRestore = () =>
    restore.mutate(selected, {
      onSuccess: (answer) => {
        setSelected([]);
        if (answer.restored.length > 0)
          message.success(
            `Restored ${answer.restored.length} file${answer.restored.length === 1 ? '' : 's'}`,
          );
        for (const e of answer.errors) message.error(e.message);
      },
      onError: (e) => message.error(e.message),
    });

  return (
    <Flex vertical gap="middle">
      <title>Archive search</title>
      <Typography.Title level={1} style={{ margin: 0, fontSize: 26 }}>
        Archive
      </Typography.Title>
      {!retention.isPending && !retention.enabled ? (
        <Alert type="info" showIcon title="The archive (cold storage) is not enabled on this instance." />
      ) : (
        <>
          <Space wrap>
            <Input.Search
              aria-label="Name or path"
              placeholder="Name or path (* and ? wildcards)"
              defaultValue={search.q}
              onSearch={(v) => set('q', v.trim())}
              allowClear
              style={{ width: 320 }}
            />
            <Input
              aria-label="Repository"
              placeholder="Repository"
              defaultValue={search.repo}
              onBlur={(e) => set('repo', e.target.value.trim())}
              onPressEnter={(e) => set('repo', e.currentTarget.value.trim())}
              style={{ width: 200 }}
            />
            <Input
              aria-label="Archived from"
              type="date"
              defaultValue={search.from}
              onChange={(e) => set('from', e.target.value)}
            />
            <Input
              aria-label="Archived to"
              type="date"
              defaultValue={search.to}
              onChange={(e) => set('to', e.target.value)}
            />
            <Button
              type="primary"
              disabled={selected.length === 0}
              loading={restore.isPending}
              onClick={onRestore}
            >
              Restore{selected.length > 0 ? ` (${selected.length})` : ''}
            </Button>
          </Space>
          <QueryState
            isPending={results.isPending && retention.enabled}
            error={results.error}
            onRetry={() => results.refetch()}
            what="archived files"
          />
          {results.data && (
            <>
              <Typography.Text type="secondary">
                {results.data.total} archived file{results.data.total === 1 ? '' : 's'}
              </Typography.Text>
              <Table<ArchivedArtifact>
                rowKey="id"
                size="middle"
                dataSource={results.data.results}
                rowSelection={{
                  selectedRowKeys: selected,
                  onChange: (keys) => setSelected(keys.map(String)),
                }}
                pagination={{ pageSize: 50, hideOnSinglePage: true }}
                locale={{ emptyText: <Empty description="No archived files match" /> }}
                columns={[
                  { title: 'Name', dataIndex: 'name' },
                  { title: 'Path', dataIndex: 'path' },
                  { title: 'Repository', dataIndex: 'repoKey' },
                  { title: 'Size', dataIndex: 'size', align: 'right', render: (n: number) => formatBytes(n) },
                  {
                    title: 'Archived',
                    dataIndex: 'archivedAt',
                    render: (at: string) => new Date(at).toLocaleString(),
                  },
                  { title: 'Policy', dataIndex: 'policy', render: (p: string | null) => p ?? '—' },
                ]}
              />
            </>
          )}
        </>
      )}
    </Flex>
  );
}
