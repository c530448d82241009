import { ApiOutlined } from '@ant-design/icons';
import {
  type EventDomainInfo,
  WEBHOOK_LAYOUT_GUTTER,
  WEBHOOK_MESSAGES,
  type WebhookSubscription,
} from '@granary/contracts';
import { useQuery } from '@tanstack/react-query';
import {
  Alert,
  App,
  Button,
  Card,
  Checkbox,
  Col,
  Flex,
  Form,
  Input,
  Radio,
  Row,
  Select,
  Space,
  Switch,
  Typography,
} from 'antd';
import { useMemo, useState } from 'react';
import { useNavigate, useParams } from 'react-router';
import { isApiError } from '../../../shared/api/index.ts';
import { AdminPage, QueryState } from '../../../shared/components/AdminPage.tsx';
import { ErrorAlert } from '../../../shared/components/ErrorAlert.tsx';
import { CriteriaFields } from '../components/CriteriaFields.tsx';
import { DeliveryLogDrawer } from '../components/DeliveryLogDrawer.tsx';
import { NameValueRows } from '../components/NameValueRows.tsx';
import {
  domainsQueryOptions,
  proxiesQueryOptions,
  useSaveWebhookMutation,
  useTestWebhookMutation,
  webhookQueryOptions,
  webhooksQueryOptions,
} from '../queries.ts';
import {
  EMPTY_FORM,
  fromSubscription,
  HTTP_METHODS,
  hasStoredSecret,
  headerRowRule,
  mandatoryRule,
  nameRules,
  secretRowRule,
  secretValueRule,
  toSubscription,
  urlRules,
  type WebhookFormValues,
} from '../webhookForm.ts';
import { WEBHOOKS_PATH } from './WebhooksPage.tsx';
import '../webhooks.css';

const TRAIL: [string, string][] = [['Webhooks', WEBHOOKS_PATH]];

/** spec 001 §2 admin configuration/webhooks new and edit/{webhookName}. */
export function WebhookFormPage() {
  const { webhookName } = useParams();
  return webhookName ? <EditWebhook name={webhookName} /> : <WebhookEditor subscription={null} />;
}

function EditWebhook({ name }: { name: string }) {
  const webhook = useQuery(webhookQueryOptions(name));
  if (!webhook.data) {
    return (
      <AdminPage title={`Edit ${name}`} trail={TRAIL}>
        <QueryState
          isPending={webhook.isPending}
          error={webhook.error}
          onRetry={() => void webhook.refetch()}
          what={`webhook ${name}`}
        />
      </AdminPage>
    );
  }
  return <WebhookEditor key={name} subscription={webhook.data} />;
}

/** The server's reason without the title it may repeat ("Sending a dummy Webhook failed: …"). */
function failureReason(message: string): string {
  const rest = message.startsWith(WEBHOOK_MESSAGES.testFailure)
    ? message.slice(WEBHOOK_MESSAGES.testFailure.length).replace(/^[\s:.-]+/, '')
    : message;
  return rest === '' ? message : rest.charAt(0).toUpperCase() + rest.slice(1);
}

type TestResult = { kind: 'success' } | { kind: 'failure'; reason: string } | { kind: 'unreachable' };

function TestResultAlert({ result }: { result: TestResult }) {
  if (result.kind === 'success')
    return <Alert type="success" showIcon title={WEBHOOK_MESSAGES.testSuccess} role="status" />;
  if (result.kind === 'unreachable')
    return <Alert type="error" showIcon title={WEBHOOK_MESSAGES.testUnreachable} />;
  return <Alert type="error" showIcon title={WEBHOOK_MESSAGES.testFailure} description={result.reason} />;
}

/**
 * The event types as a labelled group of checkboxes. Form.Item's aria-required (a required field) is not allowed
 * on a group, so only the value, the change handler and the id are passed on.
 */
function EventTypes({
  id,
  value,
  onChange,
  options,
}: {
  id?: string;
  value?: string[];
  onChange?: (value: string[]) => void;
  options: { value: string; label: string }[];
}) {
  return (
    <fieldset id={id} aria-label="Event types" className="webhook-fieldset">
      <Checkbox.Group value={value} onChange={(v) => onChange?.(v as string[])} options={options} />
    </fieldset>
  );
}

function domainOption(d: EventDomainInfo) {
  return {
    value: d.domain,
    disabled: !d.available,
    title: d.available ? d.title : (d.note ?? d.title),
    label: (
      <Flex vertical>
        <span>{d.title}</span>
        {!d.available && d.note && (
          <Typography.Text type="secondary" style={{ fontSize: 12 }}>
            {d.note}
          </Typography.Text>
        )}
      </Flex>
    ),
  };
}

function WebhookEditor({ subscription }: { subscription: WebhookSubscription | null }) {
  const navigate = useNavigate();
  const { message } = App.useApp();
  const [form] = Form.useForm<WebhookFormValues>();
  const isNew = subscription === null;
  const list = useQuery({ ...webhooksQueryOptions(), enabled: isNew });
  const domains = useQuery(domainsQueryOptions());
  const proxies = useQuery(proxiesQueryOptions());
  const save = useSaveWebhookMutation();
  const test = useTestWebhookMutation();
  const [testResult, setTestResult] = useState<TestResult | null>(null);
  const [logOpen, setLogOpen] = useState(false);

  const initialValues = useMemo(
    () => (subscription ? fromSubscription(subscription) : EMPTY_FORM),
    [subscription],
  );
  const takenNames = useMemo(() => (isNew ? (list.data ?? []).map((s) => s.key) : []), [isNew, list.data]);
  const domain = Form.useWatch('domain', form);
  const handlerType = Form.useWatch('handler_type', form) ?? initialValues.handler_type;
  const removeSecret = Form.useWatch('removeSecret', form) ?? false;
  const domainInfo = domains.data?.find((d) => d.domain === domain);
  const kind = domainInfo?.criteria ?? 'none';
  const storedSecret = hasStoredSecret(subscription);
  const storedSecretNames = (subscription?.handlers[0]?.secrets ?? []).map((s) => s.name);

  const onValuesChange = (changed: Partial<WebhookFormValues>) => {
    setTestResult(null);
    if ('domain' in changed) {
      form.setFieldsValue({
        event_types: [],
        repoScope: [],
        repoKeys: [],
        anyBuild: false,
        selectedBuilds: [],
        anyReleaseBundle: false,
        registeredReleaseBundlesNames: [],
        includePatterns: [],
        excludePatterns: [],
      });
    }
  };

  const onFinish = (values: WebhookFormValues) => {
    const body = toSubscription(values, kind);
    save.mutate(
      { subscription: body, create: isNew },
      {
        onSuccess: () => {
          message.success(isNew ? `Webhook ${body.key} created` : `Webhook ${body.key} saved`);
          navigate(WEBHOOKS_PATH);
        },
        onError: (error) => {
          if (isApiError(error) && error.status === 409) {
            form.setFields([{ name: 'key', errors: [WEBHOOK_MESSAGES.duplicate] }]);
          }
        },
      },
    );
  };

  /** spec 001 §8: sends the form as it is, saved or not, to `subscriptions/test`. */
  const onTest = async () => {
    setTestResult(null);
    let values: WebhookFormValues;
    try {
      values = await form.validateFields();
    } catch {
      return;
    }
    test.mutate(toSubscription(values, kind), {
      onSuccess: () => setTestResult({ kind: 'success' }),
      onError: (error) =>
        setTestResult(
          isApiError(error) && error.status === 0
            ? { kind: 'unreachable' }
            : { kind: 'failure', reason: failureReason(error.message) },
        ),
    });
  };

  const conflict = save.isError && isApiError(save.error) && save.error.status === 409;

  return (
    <AdminPage
      title={isNew ? 'New Webhook' : `Edit ${subscription.key}`}
      trail={TRAIL}
      extra={isNew ? undefined : <Button onClick={() => setLogOpen(true)}>Delivery log</Button>}
    >
      {subscription?.disabled_reason && !subscription.enabled && (
        <Alert
          type="warning"
          showIcon
          title="The server disabled this webhook"
          description={`${subscription.disabled_reason} Enable it again once the receiver accepts deliveries.`}
        />
      )}
      <Card variant="borderless">
        {save.isError && !conflict && <ErrorAlert error={save.error} style={{ marginBottom: 16 }} />}
        <Form<WebhookFormValues>
          form={form}
          layout="vertical"
          initialValues={initialValues}
          onValuesChange={onValuesChange}
          onFinish={onFinish}
          disabled={save.isPending}
          scrollToFirstError
        >
          <Row gutter={WEBHOOK_LAYOUT_GUTTER}>
            <Col xs={24} lg={12}>
              <Typography.Title level={2} style={{ fontSize: 18 }}>
                General
              </Typography.Title>
              <Form.Item label="Name" name="key" required rules={nameRules(takenNames)}>
                <Input autoComplete="off" disabled={!isNew} />
              </Form.Item>
              <Form.Item label="Description" name="description">
                <Input.TextArea rows={2} maxLength={1024} />
              </Form.Item>
              <Form.Item label="Enabled" name="enabled" valuePropName="checked">
                <Switch />
              </Form.Item>
              <Form.Item
                label="URL"
                name="url"
                required
                rules={urlRules}
                extra="http, https or ftp; private and loopback addresses only when the outbound allow-list names them"
              >
                <Input autoComplete="off" placeholder="https://ci.example.com/hooks/granary" />
              </Form.Item>
              <Form.Item label="Handler" name="handler_type">
                <Radio.Group
                  optionType="button"
                  options={[
                    { value: 'webhook', label: 'Predefined' },
                    { value: 'custom-webhook', label: 'Custom' },
                  ]}
                />
              </Form.Item>
              <Form.Item label="Proxy" name="proxy">
                <Select
                  aria-label="Proxy"
                  loading={proxies.isPending}
                  options={[
                    { value: '', label: 'System default' },
                    ...(proxies.data ?? []).map((p) => ({ value: p, label: p })),
                  ]}
                />
              </Form.Item>
              <Form.Item
                label="Authentication secret"
                name="secret"
                extra="Sent as X-JFrog-Event-Auth, or used to sign the payload. Never shown again once saved."
              >
                <Input.Password
                  autoComplete="new-password"
                  disabled={removeSecret}
                  placeholder={storedSecret ? 'A secret is stored; leave empty to keep it' : 'No secret'}
                />
              </Form.Item>
              {storedSecret && (
                <Form.Item name="removeSecret" valuePropName="checked" style={{ marginBottom: 8 }}>
                  <Checkbox>Remove the stored secret</Checkbox>
                </Form.Item>
              )}
              <Form.Item name="use_secret_for_signing" valuePropName="checked">
                <Checkbox>Sign payload with secret</Checkbox>
              </Form.Item>
              <NameValueRows list="headers" noun="Header" title="Custom headers" rowRule={headerRowRule} />
              {handlerType === 'custom-webhook' && (
                <>
                  <Form.Item label="Method" name="method">
                    <Select aria-label="Method" options={HTTP_METHODS.map((m) => ({ value: m, label: m }))} />
                  </Form.Item>
                  <Form.Item
                    label="Payload"
                    name="payload"
                    extra="A template: the event's fields as {{.data.path}}, secrets by name as {{.secrets.NAME}}"
                  >
                    <Input.TextArea rows={6} className="webhook-payload" spellCheck={false} />
                  </Form.Item>
                  <NameValueRows
                    list="secrets"
                    noun="Secret"
                    title="Secrets"
                    rowRule={secretRowRule}
                    valueRule={(index) => secretValueRule(index, storedSecretNames)}
                    secret
                    storedNames={storedSecretNames}
                  />
                </>
              )}
            </Col>
            <Col xs={24} lg={12}>
              <Typography.Title level={2} style={{ fontSize: 18 }}>
                Events
              </Typography.Title>
              {domains.isError && (
                <ErrorAlert title="Could not load the event domains" error={domains.error} />
              )}
              <Form.Item label="Event domain" name="domain" required rules={[mandatoryRule]}>
                <Select
                  aria-label="Event domain"
                  placeholder="Choose what the webhook listens to"
                  // Fifteen domains: every one in the list (a virtual list renders only those scrolled to).
                  virtual={false}
                  loading={domains.isPending}
                  options={(domains.data ?? []).map(domainOption)}
                  labelRender={({ value }) =>
                    domains.data?.find((d) => d.domain === value)?.title ?? String(value)
                  }
                />
              </Form.Item>
              {domainInfo && (
                <>
                  <Form.Item label="Event types" name="event_types" required rules={[mandatoryRule]}>
                    <EventTypes
                      options={domainInfo.event_types.map((t) => ({ value: t.type, label: t.title }))}
                    />
                  </Form.Item>
                  <CriteriaFields kind={kind} />
                </>
              )}
            </Col>
          </Row>
          {testResult && (
            <div style={{ marginBottom: 16 }}>
              <TestResultAlert result={testResult} />
            </div>
          )}
          <Space wrap>
            <Button type="primary" htmlType="submit" loading={save.isPending}>
              {isNew ? 'Create Webhook' : 'Save'}
            </Button>
            <Button icon={<ApiOutlined />} onClick={() => void onTest()} loading={test.isPending}>
              Test
            </Button>
            <Button onClick={() => navigate(WEBHOOKS_PATH)}>Cancel</Button>
          </Space>
        </Form>
      </Card>
      {!isNew && (
        <DeliveryLogDrawer webhookKey={logOpen ? subscription.key : null} onClose={() => setLogOpen(false)} />
      )}
    </AdminPage>
  );
}
