import { useQuery } from '@tanstack/react-query';
import { App, Button, Form, Input, List, Modal, Select } from 'antd';
import { useState } from 'react';
import { ErrorAlert } from '../../../shared/components/ErrorAlert.tsx';
import { repositoriesQueryOptions, useCopyMoveMutation } from '../queries.ts';
import { nodeKey, type TreeRef } from './treeKeys.ts';

interface Destination {
  repo: string;
  path: string;
}

export interface CopyMoveModalProps {
  mode: 'copy' | 'move';
  source: TreeRef;
  /** Closed; with the destination's tree key after a copy or move. */
  onClose: (destinationKey?: string) => void;
}

/** Copy or Move a file or folder to a repository and path, with a dry run first if wanted. */
export function CopyMoveModal({ mode, source, onClose }: CopyMoveModalProps) {
  const repositories = useQuery(repositoriesQueryOptions());
  const run = useCopyMoveMutation();
  const { message } = App.useApp();
  const [form] = Form.useForm<Destination>();
  const [dryRun, setDryRun] = useState<string[] | null>(null);
  const Verb = mode === 'copy' ? 'Copy' : 'Move';

  const submit = async (dry: boolean) => {
    const v = await form.validateFields();
    const path = v.path.trim().replace(/^\/+|\/+$/g, '');
    // mutateAsync, not per-call callbacks: refreshing the tree can unmount this dialog (the source
    // path is gone after a move), and React Query drops per-call callbacks of an unmounted caller.
    let answer: Awaited<ReturnType<typeof run.mutateAsync>>;
    try {
      answer = await run.mutateAsync({
        mode,
        repo: source.repo,
        path: source.path,
        to: `/${v.repo}/${path}`,
        dry,
      });
    } catch {
      return; // the error is shown from run.error
    }
    if (dry) {
      setDryRun(answer.messages.map((m) => m.message));
      return;
    }
    message.success(`${Verb} of ${source.path} to ${v.repo}/${path} completed`);
    onClose(nodeKey({ repo: v.repo, path }));
  };

  return (
    <Modal
      open
      title={`${Verb} ${source.repo}/${source.path}`}
      onCancel={() => onClose()}
      footer={[
        <Button key="cancel" onClick={() => onClose()}>
          Cancel
        </Button>,
        <Button key="dry" onClick={() => void submit(true)} loading={run.isPending && run.variables?.dry}>
          Dry Run
        </Button>,
        <Button
          key="ok"
          type="primary"
          onClick={() => void submit(false)}
          loading={run.isPending && !run.variables?.dry}
        >
          {Verb}
        </Button>,
      ]}
    >
      <Form<Destination>
        form={form}
        layout="vertical"
        initialValues={{ repo: source.repo, path: source.path }}
      >
        <Form.Item
          label="Target repository"
          name="repo"
          rules={[{ required: true, message: 'This field is mandatory' }]}
        >
          <Select
            showSearch
            options={(repositories.data ?? [])
              .filter((r) => r.type !== 'VIRTUAL')
              .map((r) => ({ value: r.key, label: r.key }))}
          />
        </Form.Item>
        <Form.Item
          label="Target path"
          name="path"
          rules={[{ required: true, whitespace: true, message: 'This field is mandatory' }]}
        >
          <Input autoComplete="off" />
        </Form.Item>
      </Form>
      {run.isError && <ErrorAlert error={run.error} />}
      {dryRun && (
        <List
          size="small"
          header="Dry run"
          dataSource={dryRun}
          renderItem={(m) => <List.Item>{m}</List.Item>}
          locale={{ emptyText: 'Nothing to do' }}
        />
      )}
    </Modal>
  );
}
