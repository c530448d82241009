import type { StorageGcResult } from '@granary/contracts';
import { useQuery } from '@tanstack/react-query';
import { Alert, Button, Card, Descriptions, Flex, Popconfirm, Spin, Tag, Typography } from 'antd';
import { useState } from 'react';
import { ErrorAlert } from '../../../shared/components/ErrorAlert.tsx';
import { formatBytes } from '../bytes.ts';
import { gcStatusQueryOptions, useRunGcMutation } from '../queries.ts';

const seconds = (ms: number) => `${(ms / 1000).toFixed(ms < 10_000 ? 1 : 0)} s`;

function ResultAlert({ result }: { result: StorageGcResult }) {
  return result.dryRun ? (
    <Alert
      type="info"
      showIcon
      title={`Dry run: ${formatBytes(result.reclaimableBytes)} in ${result.reclaimableBlobs} blobs can be reclaimed`}
    />
  ) : (
    <Alert
      type="success"
      showIcon
      title={`Reclaimed ${formatBytes(result.reclaimedBytes)} (${result.reclaimedBlobs} blobs) in ${seconds(result.durationMs)}`}
    />
  );
}

/** issue 21: the blob garbage collection — what it would reclaim, its last run, Dry run and Run now. */
export function GcPanel() {
  const status = useQuery(gcStatusQueryOptions());
  const run = useRunGcMutation();
  const [result, setResult] = useState<StorageGcResult | null>(null);
  const s = status.data;
  const start = (dryRun: boolean) => run.mutate(dryRun, { onSuccess: setResult });
  const running = !!s?.running || run.isPending;
  return (
    <Card
      title={<h2 className="card-heading">Garbage collection</h2>}
      extra={running && <Tag color="processing">Running</Tag>}
    >
      {status.error && <ErrorAlert error={status.error} />}
      {!s && status.isPending && <Spin />}
      {s && (
        <Flex vertical gap="middle">
          <Descriptions
            size="small"
            column={{ xs: 1, md: 2 }}
            items={[
              {
                key: 'reclaimable',
                label: 'Reclaimable now',
                children: `${formatBytes(s.reclaimableBytes)} in ${s.reclaimableBlobs} blobs`,
              },
              {
                key: 'pending',
                label: 'In the grace period',
                children: `${formatBytes(s.pendingBytes)} in ${s.pendingBlobs} blobs`,
              },
              {
                key: 'last',
                label: 'Last run',
                children: s.lastRun
                  ? `${new Date(s.lastRun.startedAt).toLocaleString()}: reclaimed ${formatBytes(s.lastRun.reclaimedBytes)} (${s.lastRun.reclaimedBlobs} blobs) in ${seconds(s.lastRun.durationMs)}`
                  : 'Never',
              },
              {
                key: 'next',
                label: 'Next run',
                children: s.nextRunAt ? new Date(s.nextRunAt).toLocaleString() : 'Not scheduled',
              },
            ]}
          />
          {s.progress && (
            <Typography.Text>
              {s.progress.dryRun ? 'Counting' : 'Reclaiming'} on {s.progress.node}:{' '}
              {formatBytes(s.progress.reclaimedBytes)} of {formatBytes(s.progress.reclaimableBytes)} so far
            </Typography.Text>
          )}
          {result && !running && <ResultAlert result={result} />}
          {run.error && <ErrorAlert error={run.error} />}
          <Flex gap="small">
            <Button onClick={() => start(true)} disabled={running}>
              Dry run
            </Button>
            <Popconfirm
              title="Delete every unreferenced blob past its grace period now?"
              okText="Run now"
              onConfirm={() => start(false)}
            >
              <Button type="primary" loading={run.isPending && run.variables === false} disabled={running}>
                Run now
              </Button>
            </Popconfirm>
          </Flex>
        </Flex>
      )}
    </Card>
  );
}
