import { App, Checkbox, Flex, Form, InputNumber, Modal, Select } from 'antd';
import { useState } from 'react';
import { ErrorAlert } from '../../../shared/components/ErrorAlert.tsx';
import { retentionBody } from '../buildRules.ts';
import { useBuildRetentionMutation } from '../queries.ts';

/** Issue 19 per-build retention: keep at most N runs and/or runs newer than D days, optionally deleting artifacts. */
export function RetentionDialog({
  name,
  runs,
  onClose,
}: {
  name: string;
  runs: string[];
  onClose: () => void;
}) {
  const { message } = App.useApp();
  const [count, setCount] = useState<number | null>(null);
  const [days, setDays] = useState<number | null>(null);
  const [deleteArtifacts, setDeleteArtifacts] = useState(false);
  const [keep, setKeep] = useState<string[]>([]);
  const apply = useBuildRetentionMutation(name);
  return (
    <Modal
      open
      title={`Retention of ${name}`}
      okText="Apply retention"
      okButtonProps={{ loading: apply.isPending, disabled: count === null && days === null }}
      onCancel={onClose}
      onOk={() =>
        apply.mutate(retentionBody({ count, days, deleteArtifacts, keep }), {
          onSuccess: () => {
            message.success(`Retention applied to ${name}`);
            onClose();
          },
        })
      }
    >
      <Form layout="vertical">
        <Form.Item label="Keep at most this many runs" htmlFor="retention-count">
          <InputNumber id="retention-count" min={0} value={count} onChange={(v) => setCount(v)} />
        </Form.Item>
        <Form.Item label="Discard runs older than (days)" htmlFor="retention-days">
          <InputNumber id="retention-days" min={1} value={days} onChange={(v) => setDays(v)} />
        </Form.Item>
        <Form.Item label="Never discard these runs" htmlFor="retention-keep">
          <Select
            id="retention-keep"
            mode="multiple"
            value={keep}
            onChange={setKeep}
            options={runs.map((r) => ({ value: r, label: `#${r}` }))}
          />
        </Form.Item>
        <Flex vertical gap="small">
          <Checkbox checked={deleteArtifacts} onChange={(e) => setDeleteArtifacts(e.target.checked)}>
            Also delete the artifacts of discarded runs
          </Checkbox>
          {apply.error && <ErrorAlert error={apply.error} />}
        </Flex>
      </Form>
    </Modal>
  );
}
