import { InboxOutlined } from '@ant-design/icons';
import { App, Form, Input, Modal, Progress, Upload } from 'antd';
import { useRef, useState } from 'react';
import { ErrorAlert } from '../../../shared/components/ErrorAlert.tsx';
import { useDeployMutation } from '../queries.ts';
import { nodeKey, type TreeRef } from './treeKeys.ts';

export interface DeployModalProps {
  /** The repository or folder to deploy into. */
  target: TreeRef;
  /** Closed; with the deployed file's tree key after a deploy. */
  onClose: (deployedKey?: string) => void;
}

/** Deploy: drop or pick a file, choose its path, and watch the upload's progress. */
export function DeployModal({ target, onClose }: DeployModalProps) {
  const { message } = App.useApp();
  const deploy = useDeployMutation();
  const [file, setFile] = useState<File | null>(null);
  const [targetPath, setTargetPath] = useState('');
  const [progress, setProgress] = useState<number | null>(null);
  const abort = useRef<AbortController | null>(null);
  const prefix = target.path ? `${target.path}/` : '';

  const start = () => {
    if (!file) return;
    const path = targetPath.trim().replace(/^\/+/, '');
    if (!path) return;
    abort.current = new AbortController();
    setProgress(0);
    deploy.mutate(
      { repo: target.repo, path, file, onProgress: setProgress, signal: abort.current.signal },
      {
        onSuccess: () => {
          message.success(`Deployed ${target.repo}/${path}`);
          onClose(nodeKey({ repo: target.repo, path }));
        },
        onError: () => setProgress(null),
      },
    );
  };

  return (
    <Modal
      open
      title={`Deploy to ${target.repo}${target.path ? `/${target.path}` : ''}`}
      okText="Deploy"
      okButtonProps={{ disabled: !file || !targetPath.trim(), loading: deploy.isPending }}
      onOk={start}
      onCancel={() => {
        abort.current?.abort();
        onClose();
      }}
      destroyOnHidden
    >
      <Form layout="vertical">
        <Upload.Dragger
          multiple={false}
          showUploadList={false}
          beforeUpload={(f) => {
            setFile(f);
            setTargetPath(`${prefix}${f.name}`);
            return false;
          }}
          disabled={deploy.isPending}
          aria-label="Drop a file here or click to choose one"
        >
          <p className="ant-upload-drag-icon">
            <InboxOutlined aria-hidden />
          </p>
          <p className="ant-upload-text">
            {file
              ? `${file.name} (${file.size.toLocaleString()} bytes)`
              : 'Drop a file here or click to choose one'}
          </p>
        </Upload.Dragger>
        <Form.Item label="Target path" htmlFor="deploy-target-path" style={{ marginTop: 16 }} required>
          <Input
            id="deploy-target-path"
            value={targetPath}
            onChange={(e) => setTargetPath(e.target.value)}
            disabled={deploy.isPending}
            placeholder="folder/file.ext"
          />
        </Form.Item>
        {progress !== null && (
          <Progress
            percent={progress}
            status={deploy.isError ? 'exception' : undefined}
            aria-label="Upload progress"
          />
        )}
        {deploy.isError && <ErrorAlert error={deploy.error} />}
      </Form>
    </Modal>
  );
}
