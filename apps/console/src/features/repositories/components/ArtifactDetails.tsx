import type { DownloadStats } from '@granary/contracts';
import { useQuery } from '@tanstack/react-query';
import { Button, Card, Descriptions, Flex, Skeleton, Tabs, Tag, Typography } from 'antd';
import { CopyableValue } from '../../../shared/components/CopyableValue.tsx';
import { ErrorAlert } from '../../../shared/components/ErrorAlert.tsx';
import { SetMeUpTab } from '../../../shared/components/SetMeUpTab.tsx';
import {
  artifactActionsQueryOptions,
  downloadStatsQueryOptions,
  storageInfoQueryOptions,
} from '../queries.ts';
import { ArtifactActionsBar } from './ArtifactActionsBar.tsx';
import { PermissionsTab } from './PermissionsTab.tsx';
import { PropertiesTab } from './PropertiesTab.tsx';
import type { TreeRef } from './treeKeys.ts';

const formatSize = (bytes: number) => {
  if (bytes < 1024) return `${bytes} bytes`;
  const units = ['KB', 'MB', 'GB', 'TB'];
  let value = bytes / 1024;
  let unit = 0;
  while (value >= 1024 && unit < units.length - 1) {
    value /= 1024;
    unit += 1;
  }
  return `${value.toFixed(value < 10 ? 2 : 1)} ${units[unit]}`;
};
const when = (iso?: string) => (iso ? new Date(iso).toLocaleString() : '—');

/**
 * Issue 21: "Downloads" and "Last downloaded" (with by whom when the server knows) from `?stats`. The
 * server writes its counts in batches, so a download shows up here within about a minute.
 */
function downloadItems(stats: DownloadStats | null | undefined, pending: boolean, failed: boolean) {
  const unknown = pending ? 'Loading…' : failed ? 'Unavailable' : '—';
  if (!stats) {
    return [
      { key: 'downloads', label: 'Downloads', children: unknown },
      { key: 'lastDownloaded', label: 'Last downloaded', children: unknown },
    ];
  }
  const last =
    stats.lastDownloaded > 0
      ? `${new Date(stats.lastDownloaded).toLocaleString()}${stats.lastDownloadedBy ? ` by ${stats.lastDownloadedBy}` : ''}`
      : 'Never';
  return [
    { key: 'downloads', label: 'Downloads', children: stats.downloadCount.toLocaleString() },
    { key: 'lastDownloaded', label: 'Last downloaded', children: last },
  ];
}

export interface ArtifactDetailsProps {
  target: TreeRef;
  /** Select another node (after a move or a delete), or none. */
  onNavigate: (key: string | null) => void;
}

/** The detail panel: general information, checksums, properties, effective permissions, Set Me Up. */
export function ArtifactDetails({ target, onNavigate }: ArtifactDetailsProps) {
  const info = useQuery(storageInfoQueryOptions(target.repo, target.path));
  const actions = useQuery(artifactActionsQueryOptions(target.repo, target.path));
  const isFileTarget = actions.data?.kind === 'file';
  const stats = useQuery({ ...downloadStatsQueryOptions(target.repo, target.path), enabled: isFileTarget });
  const name = target.path ? (target.path.split('/').at(-1) ?? target.path) : target.repo;

  if (info.isError || actions.isError) {
    const error = info.error ?? actions.error;
    return (
      <Card variant="borderless">
        <ErrorAlert
          title={`Could not load ${target.repo}/${target.path}`}
          error={error}
          action={
            <Button size="small" onClick={() => onNavigate(null)}>
              Back to the tree
            </Button>
          }
        />
      </Card>
    );
  }
  if (!info.data || !actions.data) {
    return (
      <Card variant="borderless">
        <div role="status">
          <span className="sr-only">Loading details…</span>
          <Skeleton active />
        </div>
      </Card>
    );
  }
  const data = info.data;
  const kind = actions.data.kind;
  const isFile = kind === 'file';

  const general = (
    <Flex vertical gap="middle">
      <Descriptions
        size="small"
        column={1}
        bordered
        items={[
          { key: 'name', label: 'Name', children: name },
          { key: 'repo', label: 'Repository', children: data.repo },
          { key: 'path', label: 'Path', children: <code>{data.path}</code> },
          {
            key: 'kind',
            label: 'Type',
            children: <Tag>{kind === 'repository' ? actions.data.rclass : kind}</Tag>,
          },
          ...(isFile
            ? [
                { key: 'size', label: 'Size', children: formatSize(Number(data.size ?? 0)) },
                { key: 'mime', label: 'Media type', children: data.mimeType ?? '—' },
                { key: 'created', label: 'Created', children: `${when(data.created)} by ${data.createdBy}` },
                {
                  key: 'modified',
                  label: 'Last modified',
                  children: `${when(data.lastModified)}${data.modifiedBy ? ` by ${data.modifiedBy}` : ''}`,
                },
                ...downloadItems(stats.data, stats.isPending, stats.isError),
              ]
            : [{ key: 'children', label: 'Entries', children: String(data.children?.length ?? 0) }]),
        ]}
      />
      {data.checksums && (
        <>
          <Typography.Title level={3} style={{ fontSize: 16, margin: 0 }}>
            Checksums
          </Typography.Title>
          <Descriptions
            className="artifact-checksums"
            size="small"
            column={1}
            bordered
            items={(['sha256', 'sha1', 'md5'] as const).map((k) => ({
              key: k,
              label: k.toUpperCase(),
              // issue 22: one line, ellipsised, with its copy button (the chip wrapped mid-hash)
              children: <CopyableValue value={data.checksums![k]} label={k.toUpperCase()} />,
            }))}
          />
        </>
      )}
    </Flex>
  );

  return (
    <Card variant="borderless">
      <Flex vertical gap="middle">
        <Typography.Title level={2} style={{ fontSize: 20, margin: 0, wordBreak: 'break-all' }}>
          {name}
        </Typography.Title>
        <ArtifactActionsBar target={target} actions={actions.data} onNavigate={onNavigate} />
        <Tabs
          items={[
            { key: 'general', label: 'General', children: general },
            ...(isFile
              ? [
                  {
                    key: 'properties',
                    label: 'Properties',
                    children: (
                      <PropertiesTab
                        target={target}
                        canEdit={actions.data.actions.includes('Set Properties')}
                      />
                    ),
                  },
                ]
              : []),
            {
              key: 'permissions',
              label: 'Effective Permissions',
              children: <PermissionsTab actions={actions.data} />,
            },
            { key: 'setmeup', label: 'Set Me Up', children: <SetMeUpTab repo={target.repo} /> },
          ]}
        />
      </Flex>
    </Card>
  );
}
