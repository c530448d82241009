import { CheckCircleFilled } from '@ant-design/icons';
import {
  type GitIntegration,
  type GitVendorName,
  INTEGRATION_MESSAGES,
  type IntegrationProduct,
  type TestConnectionResult,
  VENDOR_IDS,
} from '@granary/contracts';
import {
  App,
  Button,
  Checkbox,
  Descriptions,
  Flex,
  Form,
  Input,
  Modal,
  Popover,
  Steps,
  Tag,
  Typography,
} from 'antd';
import { useEffect, useState } from 'react';
import { useNavigate } from 'react-router';
import { z } from 'zod';
import { zodRule } from '../../../shared/forms/zodRule.ts';
import {
  DEFAULT_VENDOR_URL,
  type GitFormValues,
  useCreateGitIntegrationMutation,
  useTestConnectionMutation,
  useUpdateGitIntegrationMutation,
  VENDOR_DISPLAY_NAMES,
} from '../gitQueries.ts';

const required = (message: string) => z.string().trim().min(1, message);

/** The form's rules (spec 001 §5); when editing, an empty token keeps the stored one. */
const formRules = (editing: boolean) =>
  z.object({
    integrationName: required(INTEGRATION_MESSAGES.nameRequired),
    url: required('URL is required'),
    userName: required(INTEGRATION_MESSAGES.userNameRequired),
    token: editing ? z.string().optional() : required(INTEGRATION_MESSAGES.tokenRequired),
  });

/** Which products a service choice stands for (spec 001 §2 service icons: xray and pipelines). */
export const SERVICES = [
  { value: 'xray', label: 'Scanning (xray): scan the repositories’ dependencies' },
  { value: 'pipelines', label: 'Pipelines' },
] as const;

/**
 * spec 001 §2 / §4 git integration modal. Steps: create or edit the integration, then select the service. The
 * connection test goes untested → tested (a popover with who the token is and its scopes); any form change resets
 * it; the create button is disabled while the test button is visible and the form is invalid. Closing resets the
 * form, edit mode, the test popover and the loading flag. §5 messages; §8 notifications.
 */
export function GitIntegrationModal({
  vendor,
  editing,
  open,
  onClose,
}: {
  vendor: GitVendorName;
  /** The integration being edited, or null to create one. */
  editing: GitIntegration | null;
  open: boolean;
  onClose: () => void;
}) {
  const [form] = Form.useForm<GitFormValues>();
  const { notification } = App.useApp();
  const navigate = useNavigate();
  const test = useTestConnectionMutation();
  const create = useCreateGitIntegrationMutation();
  const update = useUpdateGitIntegrationMutation();
  const [step, setStep] = useState<'form' | 'service'>('form');
  const [tested, setTested] = useState<TestConnectionResult | null>(null);
  const [popover, setPopover] = useState(false);
  const [createdKey, setCreatedKey] = useState<string | null>(null);
  const [services, setServices] = useState<IntegrationProduct[]>(['xray']);
  const displayName = VENDOR_DISPLAY_NAMES[vendor];
  const watched = Form.useWatch([], form) as Partial<GitFormValues> | undefined;
  const valid = formRules(editing !== null).safeParse(watched ?? {}).success;

  useEffect(() => {
    if (!open) return;
    form.setFieldsValue({
      integrationName: editing?.name ?? '',
      url: editing?.url ?? DEFAULT_VENDOR_URL[vendor],
      userName: editing?.userName ?? '',
      token: '',
    });
    setServices(editing?.products ?? ['xray']);
  }, [open, editing, vendor, form]);

  const reset = () => {
    form.resetFields();
    setStep('form');
    setTested(null);
    setPopover(false);
    setCreatedKey(null);
    test.reset();
    create.reset();
    update.reset();
  };
  const close = () => {
    reset();
    onClose();
  };

  const values = (): GitFormValues => ({ ...form.getFieldsValue(true), vendorName: VENDOR_IDS[vendor] });
  const onValuesChange = () => {
    // spec 001 §4: any form change resets the connection test to untested.
    setTested(null);
    setPopover(false);
  };

  const runTest = async () => {
    try {
      await form.validateFields();
    } catch {
      return;
    }
    test.mutate(
      { form: values(), integrationKey: editing?.key },
      {
        onSuccess: (result) => {
          setTested(result);
          setPopover(true);
        },
        onError: () => notification.error({ title: INTEGRATION_MESSAGES.testFailed }),
      },
    );
  };

  const save = async () => {
    try {
      await form.validateFields();
    } catch {
      return;
    }
    if (editing) {
      update.mutate(
        { key: editing.key, form: { ...values(), products: services } },
        {
          onSuccess: () => {
            notification.info({ title: INTEGRATION_MESSAGES.updated, description: editing.key });
            close();
          },
          onError: () => notification.error({ title: INTEGRATION_MESSAGES.updateFailed }),
        },
      );
      return;
    }
    create.mutate(values(), {
      onSuccess: (key) => {
        notification.info({ title: INTEGRATION_MESSAGES.created, description: key });
        setCreatedKey(key);
        setStep('service');
      },
      onError: () => notification.error({ title: INTEGRATION_MESSAGES.createFailed }),
    });
  };

  const chooseService = () => {
    if (!createdKey) return;
    update.mutate(
      // The token is stored already: '' keeps it (it is not sent twice).
      { key: createdKey, form: { ...values(), token: '', products: services } },
      {
        onSuccess: () => {
          const key = createdKey;
          close();
          if (services.includes('xray'))
            navigate(
              `/integrations/gitRepoScan/selectRepos?vcsType=${encodeURIComponent(vendor)}&integrationId=${encodeURIComponent(key)}`,
            );
        },
        onError: () => notification.error({ title: INTEGRATION_MESSAGES.updateFailed }),
      },
    );
  };

  const testVisible = tested === null;
  const busy = create.isPending || update.isPending;

  return (
    <Modal
      open={open}
      onCancel={close}
      title={`${editing ? 'Edit' : 'New'} ${displayName} Integration`}
      width={640}
      destroyOnHidden
      footer={
        step === 'form' ? (
          <Flex gap="small" justify="end">
            <Button onClick={close}>Cancel</Button>
            {testVisible ? (
              <Button onClick={runTest} loading={test.isPending}>
                Test Connection
              </Button>
            ) : (
              <Popover
                open={popover}
                onOpenChange={setPopover}
                trigger="click"
                title={
                  <span>
                    <CheckCircleFilled style={{ color: '#1f5f3a' }} /> Connection successful
                  </span>
                }
                content={<TestResult result={tested} />}
              >
                <Button icon={<CheckCircleFilled style={{ color: '#1f5f3a' }} />}>Tested</Button>
              </Popover>
            )}
            <Button type="primary" onClick={save} loading={busy} disabled={testVisible && !valid}>
              {editing ? 'Save' : 'Create'}
            </Button>
          </Flex>
        ) : (
          <Flex gap="small" justify="end">
            <Button onClick={close}>Later</Button>
            <Button
              type="primary"
              onClick={chooseService}
              loading={update.isPending}
              disabled={services.length === 0}
            >
              Continue
            </Button>
          </Flex>
        )
      }
    >
      <Steps
        size="small"
        current={step === 'form' ? 0 : 1}
        style={{ marginBottom: 24 }}
        items={[{ title: editing ? 'Edit Integration' : 'Create Integration' }, { title: 'Select Service' }]}
      />
      {step === 'form' ? (
        <Form<GitFormValues> form={form} layout="vertical" onValuesChange={onValuesChange} disabled={busy}>
          <Form.Item
            label="Integration Name"
            name="integrationName"
            rules={[zodRule(required(INTEGRATION_MESSAGES.nameRequired))]}
          >
            <Input autoComplete="off" />
          </Form.Item>
          <Form.Item label="URL" name="url" rules={[zodRule(required('URL is required'))]}>
            <Input />
          </Form.Item>
          <Form.Item
            label="User Name"
            name="userName"
            rules={[zodRule(required(INTEGRATION_MESSAGES.userNameRequired))]}
          >
            <Input autoComplete="off" />
          </Form.Item>
          <Form.Item
            label="Token"
            name="token"
            extra={
              editing ? `Stored token ends with …${editing.tokenLast4}. Leave empty to keep it.` : undefined
            }
            rules={editing ? [] : [zodRule(required(INTEGRATION_MESSAGES.tokenRequired))]}
          >
            <Input.Password
              autoComplete="new-password"
              placeholder={editing ? `••••${editing.tokenLast4}` : ''}
            />
          </Form.Item>
          {editing && (
            <Form.Item label="Services">
              <Checkbox.Group
                value={services}
                onChange={(v) => {
                  setServices(v as IntegrationProduct[]);
                  onValuesChange();
                }}
                options={SERVICES.map((s) => ({ value: s.value, label: s.label }))}
              />
            </Form.Item>
          )}
        </Form>
      ) : (
        <Flex vertical gap="middle">
          <Typography.Paragraph>
            {displayName} integration created. Choose what Granary does with it.
          </Typography.Paragraph>
          <Checkbox.Group
            value={services}
            onChange={(v) => setServices(v as IntegrationProduct[])}
            style={{ display: 'flex', flexDirection: 'column', gap: 8 }}
            options={SERVICES.map((s) => ({ value: s.value, label: s.label }))}
          />
        </Flex>
      )}
    </Modal>
  );
}

/** The tested popover: who the token is, its scopes, its expiry and what it may do. */
export function TestResult({ result }: { result: TestConnectionResult | null }) {
  if (!result) return null;
  return (
    <Descriptions
      size="small"
      column={1}
      style={{ maxWidth: 360 }}
      items={[
        { key: 'who', label: 'Identity', children: result.identity.login },
        ...(result.identity.name ? [{ key: 'name', label: 'Name', children: result.identity.name }] : []),
        {
          key: 'scopes',
          label: 'Scopes',
          children: result.scopes.length ? result.scopes.map((s) => <Tag key={s}>{s}</Tag>) : 'not reported',
        },
        {
          key: 'expires',
          label: 'Expires',
          children: result.expiresAt ? new Date(result.expiresAt).toLocaleString() : 'never or not reported',
        },
        {
          key: 'can',
          label: 'Can',
          children: Object.entries(result.capabilities)
            .filter(([, yes]) => yes)
            .map(([c]) => <Tag key={c}>{c}</Tag>),
        },
      ]}
    />
  );
}
