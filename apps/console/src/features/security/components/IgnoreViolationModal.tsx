import type { Violation } from '@granary/contracts';
import { App, Form, Input, Modal, Radio, Typography } from 'antd';
import { useEffect } from 'react';
import { useIgnoreViolationMutation } from '../queries.ts';
import { componentLabel, expiryDateTime, todayIso } from '../securityRules.ts';

/** The contracts' messages for an ignore rule's required justification and expiry (`xrayIgnoreRuleSchema`). */
export const IGNORE_MESSAGES = {
  justification: 'A justification is required',
  expiry: 'An expiry date is required',
} as const;

interface IgnoreForm {
  mode: 'once' | 'all';
  notes: string;
  expiry: string;
}

/**
 * Ignore a violation (spec 001 §7 "ignore all or single violation (ignore_once)"): once (this violation only) or
 * always (every violation of this issue on this component), with a justification and an expiry date, both required.
 */
export function IgnoreViolationModal({
  violation,
  onClose,
}: {
  violation: Violation | null;
  onClose: () => void;
}) {
  const { message } = App.useApp();
  const [form] = Form.useForm<IgnoreForm>();
  const ignore = useIgnoreViolationMutation();
  useEffect(() => {
    if (violation) form.resetFields();
  }, [violation, form]);

  const submit = async () => {
    if (!violation) return;
    const values = await form.validateFields();
    ignore.mutate(
      {
        violationId: violation.id,
        mode: values.mode,
        notes: values.notes.trim(),
        expiration_date: expiryDateTime(values.expiry),
      },
      {
        onSuccess: () => {
          message.success(`Violation ${violation.issueId} ignored until ${values.expiry}`);
          onClose();
        },
        onError: (error) => message.error(error.message),
      },
    );
  };

  return (
    <Modal
      open={violation !== null}
      title={violation ? `Ignore ${violation.issueId}` : 'Ignore'}
      okText="Ignore"
      onOk={() => void submit().catch(() => undefined)}
      confirmLoading={ignore.isPending}
      onCancel={onClose}
      destroyOnHidden
    >
      {violation && (
        <Typography.Paragraph type="secondary">
          {componentLabel(violation.componentPurl)} in {violation.repoKey}/{violation.path} (watch{' '}
          {violation.watch}, policy {violation.policy})
        </Typography.Paragraph>
      )}
      <Form form={form} layout="vertical" initialValues={{ mode: 'once', notes: '', expiry: '' }}>
        <Form.Item name="mode" label="Ignore">
          <Radio.Group
            options={[
              { value: 'once', label: 'Once (this violation only)' },
              { value: 'all', label: 'Always (this issue on this component)' },
            ]}
          />
        </Form.Item>
        <Form.Item
          name="notes"
          label="Justification"
          rules={[{ required: true, whitespace: true, message: IGNORE_MESSAGES.justification }]}
        >
          <Input.TextArea rows={3} maxLength={2000} />
        </Form.Item>
        <Form.Item
          name="expiry"
          label="Expiry date"
          rules={[{ required: true, message: IGNORE_MESSAGES.expiry }]}
        >
          <Input type="date" min={todayIso()} />
        </Form.Item>
      </Form>
    </Modal>
  );
}
