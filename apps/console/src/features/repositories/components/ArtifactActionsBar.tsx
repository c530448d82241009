import {
  ClearOutlined,
  CopyOutlined,
  DeleteOutlined,
  DownloadOutlined,
  ExportOutlined,
  ReloadOutlined,
  ScissorOutlined,
  UploadOutlined,
} from '@ant-design/icons';
import type { ArtifactActions } from '@granary/contracts';
import { useQueryClient } from '@tanstack/react-query';
import { App, Button, Flex, Popconfirm } from 'antd';
import { useState } from 'react';
import {
  archiveUrl,
  artifactUrl,
  treeKeys,
  useDeleteArtifactMutation,
  useZapCacheMutation,
} from '../queries.ts';
import { CopyMoveModal } from './CopyMoveModal.tsx';
import { DeployModal } from './DeployModal.tsx';
import { nodeKey, type TreeRef } from './treeKeys.ts';

export interface ArtifactActionsBarProps {
  target: TreeRef;
  actions: ArtifactActions;
  onNavigate: (key: string | null) => void;
}

/** spec 001 §3 actions that apply here, each shown only when the server says the caller may. */
export function ArtifactActionsBar({ target, actions, onNavigate }: ArtifactActionsBarProps) {
  const queryClient = useQueryClient();
  const { message } = App.useApp();
  const remove = useDeleteArtifactMutation();
  const zap = useZapCacheMutation();
  const [dialog, setDialog] = useState<'deploy' | 'copy' | 'move' | null>(null);
  const has = (a: ArtifactActions['actions'][number]) => actions.actions.includes(a);
  const label = target.path || target.repo;
  const parentKey = () => {
    const parts = target.path.split('/');
    return nodeKey({ repo: target.repo, path: parts.slice(0, -1).join('/') });
  };

  return (
    <Flex wrap gap="small" role="toolbar" aria-label="Actions">
      {has('Download') && (
        <Button icon={<DownloadOutlined />} href={artifactUrl(target.repo, target.path)} download>
          Download
        </Button>
      )}
      {has('Download Folder') && (
        <Button icon={<DownloadOutlined />} href={archiveUrl(target.repo, target.path)} download>
          Download folder
        </Button>
      )}
      {has('Deploy') && (
        <Button type="primary" icon={<UploadOutlined />} onClick={() => setDialog('deploy')}>
          Deploy
        </Button>
      )}
      {has('Copy') && (
        <Button icon={<CopyOutlined />} onClick={() => setDialog('copy')}>
          Copy
        </Button>
      )}
      {has('Move') && (
        <Button icon={<ScissorOutlined />} onClick={() => setDialog('move')}>
          Move
        </Button>
      )}
      {has('Delete') && (
        <Popconfirm
          title={`Delete ${label}?`}
          description={actions.kind === 'folder' ? 'Everything in the folder is deleted.' : undefined}
          okText="Delete"
          okButtonProps={{ danger: true }}
          onConfirm={() =>
            remove.mutateAsync(target).then(
              () => {
                message.success(`${label} deleted`);
                onNavigate(parentKey());
              },
              (e: Error) => message.error(e.message),
            )
          }
        >
          <Button danger icon={<DeleteOutlined />}>
            Delete
          </Button>
        </Popconfirm>
      )}
      {has('Zap Cache') && (
        <Button
          icon={<ClearOutlined />}
          loading={zap.isPending}
          onClick={() =>
            zap.mutate(target, {
              onSuccess: (a) =>
                message.success(
                  `Cache zapped: ${a.expired} cached file(s) marked stale, ${a.forgottenMisses} miss(es) forgotten`,
                ),
              onError: (e) => message.error(e.message),
            })
          }
        >
          Zap Cache
        </Button>
      )}
      {has('Native Browser') && (
        <Button
          icon={<ExportOutlined />}
          href={artifactUrl(target.repo, target.path, true)}
          target="_blank"
          rel="noopener noreferrer"
        >
          Native Browser
        </Button>
      )}
      {has('Refresh') && (
        <Button
          icon={<ReloadOutlined />}
          onClick={() => void queryClient.invalidateQueries({ queryKey: treeKeys.all })}
        >
          Refresh
        </Button>
      )}
      {dialog === 'deploy' && (
        <DeployModal
          target={target}
          onClose={(deployedKey) => {
            setDialog(null);
            if (deployedKey) onNavigate(deployedKey);
          }}
        />
      )}
      {(dialog === 'copy' || dialog === 'move') && (
        <CopyMoveModal
          mode={dialog}
          source={target}
          onClose={(destinationKey) => {
            setDialog(null);
            if (destinationKey) onNavigate(destinationKey);
          }}
        />
      )}
    </Flex>
  );
}
