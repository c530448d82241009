import { isProxyHost, PROXY_KEY_PATTERN, PROXY_MESSAGES, type ProxyInfo } from '@granary/contracts';
import { useQuery, useQueryClient } from '@tanstack/react-query';
import {
  App,
  Button,
  Card,
  Checkbox,
  Col,
  Form,
  Input,
  InputNumber,
  Row,
  Select,
  Space,
  Typography,
} from 'antd';
import { useNavigate, useParams } from 'react-router';
import { isApiError } from '../../../shared/api/index.ts';
import { AdminPage, QueryState } from '../../../shared/components/AdminPage.tsx';
import { ErrorAlert } from '../../../shared/components/ErrorAlert.tsx';
import { proxiesQueryOptions, proxyQueryOptions, useSaveProxyMutation } from '../queries.ts';
import { PROXIES_PATH } from './ProxiesPage.tsx';

const TRAIL: [string, string][] = [['Proxies', PROXIES_PATH]];

interface ProxyFormValues {
  key: string;
  host: string;
  port: number | null;
  username: string;
  password: string;
  removePassword: boolean;
  ntHost: string;
  domain: string;
  defaultProxy: boolean;
  redirectToHosts: string[];
}

/** spec 000 §2 admin proxies/configuration/new and edit/{proxyName}. */
export function ProxyFormPage() {
  const { proxyName } = useParams();
  const one = useQuery({ ...proxyQueryOptions(proxyName ?? ''), enabled: proxyName !== undefined });
  if (proxyName === undefined) return <ProxyEditor proxy={null} />;
  if (!one.data)
    return (
      <AdminPage title={`Edit ${proxyName}`} trail={TRAIL}>
        <QueryState
          isPending={one.isPending}
          error={one.error}
          onRetry={() => void one.refetch()}
          what={`proxy ${proxyName}`}
        />
      </AdminPage>
    );
  return <ProxyEditor proxy={one.data} />;
}

function ProxyEditor({ proxy }: { proxy: ProxyInfo | null }) {
  const navigate = useNavigate();
  const { message } = App.useApp();
  const [form] = Form.useForm<ProxyFormValues>();
  const isNew = proxy === null;
  const queryClient = useQueryClient();
  const save = useSaveProxyMutation();
  const removePassword = Form.useWatch('removePassword', form) ?? false;
  const initialValues: ProxyFormValues = {
    key: proxy?.key ?? '',
    host: proxy?.host ?? '',
    port: proxy?.port ?? null,
    username: proxy?.username ?? '',
    // Write-only: never shown; left empty, the stored one stays.
    password: '',
    removePassword: false,
    ntHost: proxy?.ntHost ?? '',
    domain: proxy?.domain ?? '',
    defaultProxy: proxy?.defaultProxy ?? false,
    redirectToHosts: proxy?.redirectToHosts ?? [],
  };

  const onFinish = (v: ProxyFormValues) => {
    const key = v.key.trim();
    save.mutate(
      {
        create: isNew,
        proxy: {
          key,
          host: v.host.trim(),
          port: v.port ?? 0,
          username: v.username.trim(),
          password: v.removePassword ? null : v.password,
          ntHost: v.ntHost.trim(),
          domain: v.domain.trim(),
          defaultProxy: v.defaultProxy,
          redirectToHosts: v.redirectToHosts,
        },
      },
      {
        onSuccess: () => {
          message.success(isNew ? `Proxy ${key} created` : `Proxy ${key} saved`);
          navigate(PROXIES_PATH);
        },
        onError: (error) => {
          if (isApiError(error) && error.status === 409)
            form.setFields([{ name: 'key', errors: [PROXY_MESSAGES.duplicate] }]);
        },
      },
    );
  };
  const conflict = save.isError && isApiError(save.error) && save.error.status === 409;

  return (
    <AdminPage title={isNew ? 'New Proxy' : `Edit ${proxy.key}`} trail={TRAIL}>
      <Card variant="borderless">
        {save.isError && !conflict && <ErrorAlert error={save.error} style={{ marginBottom: 16 }} />}
        <Form<ProxyFormValues>
          form={form}
          layout="vertical"
          initialValues={initialValues}
          onFinish={onFinish}
          disabled={save.isPending}
          scrollToFirstError
          style={{ maxWidth: 880 }}
        >
          <Row gutter={24}>
            <Col xs={24} md={12}>
              <Form.Item
                label="Proxy key"
                name="key"
                required
                rules={[
                  { required: true, message: PROXY_MESSAGES.mandatory },
                  { pattern: PROXY_KEY_PATTERN, message: PROXY_MESSAGES.key },
                  {
                    // The list as the server has it (fetched if not yet): a name taken in any case is refused.
                    validator: async (_, value: string) => {
                      if (!isNew || !value) return;
                      const taken = await queryClient.ensureQueryData(proxiesQueryOptions());
                      if (taken.some((p) => p.key.toLowerCase() === value.trim().toLowerCase()))
                        throw new Error(PROXY_MESSAGES.duplicate);
                    },
                  },
                ]}
              >
                <Input disabled={!isNew} />
              </Form.Item>
            </Col>
            <Col xs={24} md={12}>
              <Form.Item label="Default" name="defaultProxy" valuePropName="checked">
                <Checkbox>Default proxy (used by whatever names no proxy)</Checkbox>
              </Form.Item>
            </Col>
            <Col xs={24} md={16}>
              <Form.Item
                label="Host"
                name="host"
                required
                rules={[
                  { required: true, message: PROXY_MESSAGES.mandatory },
                  {
                    validator: (_, value: string) =>
                      !value || isProxyHost(value.trim())
                        ? Promise.resolve()
                        : Promise.reject(new Error(PROXY_MESSAGES.host)),
                  },
                ]}
              >
                <Input placeholder="proxy.example.com" />
              </Form.Item>
            </Col>
            <Col xs={24} md={8}>
              <Form.Item
                label="Port"
                name="port"
                required
                rules={[
                  { required: true, message: PROXY_MESSAGES.mandatory },
                  { type: 'integer', min: 1, max: 65535, message: PROXY_MESSAGES.port },
                ]}
              >
                <InputNumber style={{ width: '100%' }} placeholder="3128" />
              </Form.Item>
            </Col>
            <Col xs={24} md={12}>
              <Form.Item label="User name" name="username">
                <Input autoComplete="off" />
              </Form.Item>
            </Col>
            <Col xs={24} md={12}>
              <Form.Item
                label="Password"
                name="password"
                extra={
                  proxy?.passwordSet
                    ? 'A password is stored. Leave this empty to keep it.'
                    : 'Sent as Basic Proxy-Authorization. Never shown again once saved.'
                }
              >
                <Input.Password
                  autoComplete="new-password"
                  disabled={removePassword}
                  placeholder={proxy?.passwordSet ? 'Unchanged' : ''}
                />
              </Form.Item>
              {proxy?.passwordSet && (
                <Form.Item name="removePassword" valuePropName="checked" style={{ marginTop: -12 }}>
                  <Checkbox>Remove the stored password</Checkbox>
                </Form.Item>
              )}
            </Col>
            <Col xs={24} md={12}>
              <Form.Item
                label="NT host"
                name="ntHost"
                extra="Stored for NTLM; Granary sends Basic credentials only."
              >
                <Input />
              </Form.Item>
            </Col>
            <Col xs={24} md={12}>
              <Form.Item label="NT domain" name="domain">
                <Input />
              </Form.Item>
            </Col>
            <Col xs={24}>
              <Form.Item
                label="Redirecting hosts"
                name="redirectToHosts"
                extra="Hosts a redirect may lead to with the request's credentials kept."
              >
                <Select
                  mode="tags"
                  aria-label="Redirecting hosts"
                  tokenSeparators={[',', ' ']}
                  open={false}
                />
              </Form.Item>
            </Col>
          </Row>
          <Space>
            <Button type="primary" htmlType="submit" loading={save.isPending}>
              {isNew ? 'Create' : 'Save'}
            </Button>
            <Button onClick={() => navigate(PROXIES_PATH)}>Cancel</Button>
          </Space>
          <Typography.Paragraph type="secondary" style={{ marginTop: 16, marginBottom: 0 }}>
            A change applies to the next outbound request, on every node within a second.
          </Typography.Paragraph>
        </Form>
      </Card>
    </AdminPage>
  );
}
