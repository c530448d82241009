import { useQuery } from '@tanstack/react-query';
import { Alert, App, Checkbox, Flex, Form, Input, Modal, Radio, Select, Tag } from 'antd';
import { useState } from 'react';
import { ErrorAlert } from '../../../shared/components/ErrorAlert.tsx';
import { repositoriesQueryOptions } from '../../../shared/repositories/queries.ts';
import { PROMOTION_DEFAULTS, type PromotionForm, promotionBody } from '../buildRules.ts';
import { usePromoteBuildMutation } from '../queries.ts';

const LEVEL_COLOUR = { info: 'blue', warning: 'orange', error: 'red' } as const;

/**
 * Issue 19 build promotion (`POST /api/build/promote/{name}/{number}`): status, comment, target repository, copy
 * or move, dependencies too, dry run. The server's messages are shown as it answers them; a dry run changes
 * nothing, a real promotion is all or nothing.
 */
export function PromoteBuildDialog({
  name,
  number,
  onClose,
}: {
  name: string;
  number: string;
  onClose: () => void;
}) {
  const { message } = App.useApp();
  const [form, setForm] = useState<PromotionForm>(PROMOTION_DEFAULTS);
  const set = <K extends keyof PromotionForm>(key: K, value: PromotionForm[K]) =>
    setForm((f) => ({ ...f, [key]: value }));
  const repositories = useQuery(repositoriesQueryOptions());
  const promote = usePromoteBuildMutation(name, number);
  const answer = promote.data;
  const failed = answer?.messages.some((m) => m.level === 'error') ?? false;
  return (
    <Modal
      open
      width={640}
      title={`Promote ${name} #${number}`}
      okText={form.dryRun ? 'Dry run' : 'Promote'}
      okButtonProps={{ loading: promote.isPending }}
      cancelText="Close"
      onCancel={onClose}
      onOk={() =>
        promote.mutate(promotionBody(form), {
          onSuccess: (a) => {
            if (!form.dryRun && !a.messages.some((m) => m.level === 'error')) {
              message.success(`${name} #${number} promoted`);
            }
          },
        })
      }
    >
      <Form layout="vertical">
        <Form.Item label="Target status" htmlFor="promote-status">
          <Input id="promote-status" value={form.status} onChange={(e) => set('status', e.target.value)} />
        </Form.Item>
        <Form.Item label="Comment" htmlFor="promote-comment">
          <Input.TextArea
            id="promote-comment"
            rows={2}
            value={form.comment}
            onChange={(e) => set('comment', e.target.value)}
          />
        </Form.Item>
        <Form.Item
          label="Target repository"
          htmlFor="promote-target"
          extra="Without a target repository only the status is recorded."
        >
          <Select
            id="promote-target"
            allowClear
            showSearch
            value={form.targetRepo || undefined}
            onChange={(v) => set('targetRepo', v ?? '')}
            loading={repositories.isPending}
            options={(repositories.data ?? [])
              .filter((r) => r.type.toUpperCase() === 'LOCAL')
              .map((r) => ({ value: r.key, label: r.key }))}
          />
        </Form.Item>
        <Form.Item label="Operation">
          <Radio.Group
            value={form.operation}
            onChange={(e) => set('operation', e.target.value)}
            options={[
              { value: 'copy', label: 'Copy' },
              { value: 'move', label: 'Move' },
            ]}
          />
        </Form.Item>
        <Flex vertical gap="small">
          <Checkbox checked={form.dependencies} onChange={(e) => set('dependencies', e.target.checked)}>
            Include dependencies
          </Checkbox>
          <Checkbox checked={form.dryRun} onChange={(e) => set('dryRun', e.target.checked)}>
            Dry run (check only, change nothing)
          </Checkbox>
        </Flex>
      </Form>
      {promote.error && <ErrorAlert error={promote.error} style={{ marginTop: 16 }} />}
      {answer && (
        <Flex vertical gap="small" style={{ marginTop: 16 }}>
          <Alert
            type={failed ? 'error' : 'success'}
            showIcon
            title={
              failed
                ? 'The promotion was refused: nothing was changed'
                : promote.variables?.dryRun
                  ? 'Dry run passed: the promotion can be made'
                  : 'Promotion done'
            }
          />
          <ul aria-label="Promotion messages" className="build-promotion-messages">
            {answer.messages.length === 0 && <li>The server sent no messages</li>}
            {answer.messages.map((m) => (
              <li key={`${m.level}:${m.message}`}>
                <Tag color={LEVEL_COLOUR[m.level]}>{m.level}</Tag> {m.message}
              </li>
            ))}
          </ul>
        </Flex>
      )}
    </Modal>
  );
}
