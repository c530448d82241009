import { CopyOutlined, PlusOutlined } from '@ant-design/icons';
import {
  DEFAULT_HTTP_PORT,
  DEFAULT_HTTPS_PORT,
  HOST_NAME_PATTERN,
  PROXY_MESSAGES,
  type ProxyInfo,
  type ReverseProxySettings,
} from '@granary/contracts';
import { useQuery } from '@tanstack/react-query';
import {
  Alert,
  App,
  Button,
  Card,
  Checkbox,
  Col,
  Empty,
  Flex,
  Form,
  Input,
  InputNumber,
  Popconfirm,
  Radio,
  Row,
  Space,
  Table,
  Tabs,
  Tag,
  Typography,
} from 'antd';
import { Link, useNavigate, useSearchParams } from 'react-router';
import { AdminPage, QueryState } from '../../../shared/components/AdminPage.tsx';
import '../proxies.css';
import { ErrorAlert } from '../../../shared/components/ErrorAlert.tsx';
import {
  proxiesQueryOptions,
  reverseProxyQueryOptions,
  snippetQueryOptions,
  useDeleteProxyMutation,
  useSaveReverseProxyMutation,
} from '../queries.ts';

export const PROXIES_PATH = '/admin/proxies/configuration';
const enc = encodeURIComponent;
const portRules = [
  { required: true, message: PROXY_MESSAGES.mandatory },
  { type: 'integer' as const, min: 1, max: 65535, message: PROXY_MESSAGES.port },
];

/** spec 000 §2 admin proxies/configuration: the outbound proxies, and the reverse proxy settings (spec 001 §3). */
export function ProxiesPage() {
  const [params, setParams] = useSearchParams();
  const tab = params.get('tab') === 'reverse-proxy' ? 'reverse-proxy' : 'proxies';
  return (
    <AdminPage title="Proxies">
      <Tabs
        activeKey={tab}
        onChange={(key) => setParams(key === 'proxies' ? {} : { tab: key }, { replace: true })}
        items={[
          { key: 'proxies', label: 'Proxies', children: <ProxiesList /> },
          { key: 'reverse-proxy', label: 'Reverse proxy', children: <ReverseProxy /> },
        ]}
      />
    </AdminPage>
  );
}

function ProxiesList() {
  const { message } = App.useApp();
  const navigate = useNavigate();
  const query = useQuery(proxiesQueryOptions());
  const remove = useDeleteProxyMutation();
  const create = () => navigate(`${PROXIES_PATH}/new`);
  return (
    <Card variant="borderless">
      <Flex vertical gap="middle">
        <Flex justify="space-between" align="center" wrap gap="middle">
          <Typography.Paragraph type="secondary" style={{ margin: 0, maxWidth: 720 }}>
            Remote repositories and webhooks reach the internet through the proxy they name, or the default
            one. Without a default, GRANARY_OUTBOUND_PROXY applies, if set. A change applies to the next
            request.
          </Typography.Paragraph>
          <Button type="primary" icon={<PlusOutlined />} onClick={create}>
            New Proxy
          </Button>
        </Flex>
        <QueryState
          isPending={query.isPending}
          error={query.error}
          onRetry={() => void query.refetch()}
          what="the proxies"
        />
        {query.data && query.data.length === 0 && (
          <Empty description="No proxies yet. Add one if this server must go through a forward proxy to reach upstreams." />
        )}
        {query.data && query.data.length > 0 && (
          <Table<ProxyInfo>
            rowKey="key"
            dataSource={query.data}
            pagination={{ pageSize: 25, hideOnSinglePage: true }}
            columns={[
              {
                title: 'Key',
                dataIndex: 'key',
                render: (key: string, p) => (
                  <Space size="small">
                    <Link to={`${PROXIES_PATH}/edit/${enc(key)}`}>{key}</Link>
                    {p.defaultProxy && <Tag color="#0050b3">Default</Tag>}
                  </Space>
                ),
              },
              { title: 'Host', key: 'host', render: (_, p) => `${p.host}:${p.port}` },
              {
                title: 'User',
                key: 'user',
                render: (_, p) =>
                  p.username || <Typography.Text type="secondary">No credentials</Typography.Text>,
              },
              {
                title: 'Actions',
                key: 'actions',
                render: (_, p) => (
                  <Space size="small">
                    <Button
                      size="small"
                      aria-label={`Edit ${p.key}`}
                      onClick={() => navigate(`${PROXIES_PATH}/edit/${enc(p.key)}`)}
                    >
                      Edit
                    </Button>
                    <Popconfirm
                      title={`Delete proxy ${p.key}?`}
                      description="Remote repositories and webhooks that use it switch to the default proxy."
                      okText="Delete"
                      okButtonProps={{ danger: true }}
                      onConfirm={() =>
                        remove.mutateAsync(p.key).then(
                          (answer) =>
                            message.success(
                              answer.cleared.length > 0
                                ? `Proxy ${p.key} deleted; cleared from ${answer.cleared.map((c) => c.name).join(', ')}`
                                : `Proxy ${p.key} deleted`,
                            ),
                          (error: Error) => message.error(error.message),
                        )
                      }
                    >
                      <Button size="small" danger aria-label={`Delete ${p.key}`}>
                        Delete
                      </Button>
                    </Popconfirm>
                  </Space>
                ),
              },
            ]}
          />
        )}
      </Flex>
    </Card>
  );
}

type ReverseForm = Omit<ReverseProxySettings, 'reverseProxyRepositories' | 'webServerType'> & {
  repositories: { repoKey: string; port?: number }[];
};

function ReverseProxy() {
  const query = useQuery(reverseProxyQueryOptions());
  return (
    <Card variant="borderless">
      <QueryState
        isPending={query.isPending}
        error={query.error}
        onRetry={() => void query.refetch()}
        what="the reverse proxy settings"
      />
      {query.data && <ReverseProxyEditor settings={query.data} />}
    </Card>
  );
}

function ReverseProxyEditor({ settings }: { settings: ReverseProxySettings }) {
  const { message } = App.useApp();
  const [form] = Form.useForm<ReverseForm>();
  const save = useSaveReverseProxyMutation();
  const snippet = useQuery(snippetQueryOptions());
  const method = Form.useWatch('dockerReverseProxyMethod', form) ?? settings.dockerReverseProxyMethod;
  const useHttps = Form.useWatch('useHttps', form) ?? settings.useHttps;

  const onFinish = (v: ReverseForm) => {
    const { repositories, ...rest } = v;
    save.mutate(
      {
        ...rest,
        webServerType: 'nginx',
        reverseProxyRepositories: (repositories ?? [])
          .filter((r) => r?.repoKey)
          .map((r) => ({ repoKey: r.repoKey.trim(), ...(r.port ? { port: r.port } : {}) })),
      },
      {
        onSuccess: () => {
          message.success('Reverse proxy settings saved');
          void snippet.refetch();
        },
      },
    );
  };
  const copy = async () => {
    try {
      await navigator.clipboard.writeText(snippet.data ?? '');
      message.success('Copied to clipboard');
    } catch {
      message.error('Could not copy: select the text and copy it');
    }
  };

  return (
    <Row gutter={[32, 24]}>
      <Col xs={24} xl={11}>
        <Typography.Title level={2} style={{ fontSize: 18 }}>
          Web server settings
        </Typography.Title>
        {save.isError && <ErrorAlert error={save.error} style={{ marginBottom: 16 }} />}
        <Form<ReverseForm>
          form={form}
          layout="vertical"
          disabled={save.isPending}
          initialValues={{ ...settings, repositories: settings.reverseProxyRepositories }}
          onFinish={onFinish}
        >
          <Form.Item
            label="Server name"
            name="serverName"
            extra="The host name clients use, e.g. repo.example.com"
            rules={[
              { required: true, message: PROXY_MESSAGES.mandatory },
              { pattern: HOST_NAME_PATTERN, message: PROXY_MESSAGES.serverName },
            ]}
          >
            <Input />
          </Form.Item>
          <Form.Item label="Granary's address, as nginx reaches it" name="upstreamUrl">
            <Input placeholder="http://127.0.0.1:8080" />
          </Form.Item>
          <Space size="large" align="end" wrap>
            <Form.Item name="useHttp" valuePropName="checked" label="HTTP">
              <Checkbox>Use HTTP</Checkbox>
            </Form.Item>
            <Form.Item label="HTTP port" name="httpPort" rules={portRules}>
              <InputNumber placeholder={String(DEFAULT_HTTP_PORT)} />
            </Form.Item>
          </Space>
          <Space size="large" align="end" wrap>
            <Form.Item
              name="useHttps"
              valuePropName="checked"
              label="HTTPS"
              dependencies={['useHttp']}
              rules={[
                ({ getFieldValue }) => ({
                  validator: (_, value) =>
                    value || getFieldValue('useHttp')
                      ? Promise.resolve()
                      : Promise.reject(new Error(PROXY_MESSAGES.noListener)),
                }),
              ]}
            >
              <Checkbox>Use HTTPS</Checkbox>
            </Form.Item>
            <Form.Item label="HTTPS port" name="httpsPort" rules={portRules}>
              <InputNumber placeholder={String(DEFAULT_HTTPS_PORT)} />
            </Form.Item>
          </Space>
          {useHttps && (
            <>
              <Form.Item label="SSL certificate file" name="sslCertificate">
                <Input placeholder="/etc/nginx/ssl/repo.example.com.crt" />
              </Form.Item>
              <Form.Item label="SSL key file" name="sslKey">
                <Input placeholder="/etc/nginx/ssl/repo.example.com.key" />
              </Form.Item>
            </>
          )}
          <Form.Item label="Docker access method" name="dockerReverseProxyMethod">
            <Radio.Group
              options={[
                { value: 'repoPathPrefix', label: 'Repository path' },
                { value: 'subDomain', label: 'Subdomain' },
                { value: 'portPerRepo', label: 'Port' },
              ]}
            />
          </Form.Item>
          {method !== 'repoPathPrefix' && (
            <Form.List name="repositories">
              {(fields, { add, remove }) => (
                <Flex vertical gap={4}>
                  <Typography.Text>
                    {method === 'subDomain'
                      ? 'Docker repositories on a subdomain (none listed: every docker repository)'
                      : 'Docker repositories and the port of each'}
                  </Typography.Text>
                  {fields.map((field) => (
                    <Space key={field.key} align="start">
                      <Form.Item
                        name={[field.name, 'repoKey']}
                        rules={[{ required: true, message: PROXY_MESSAGES.mandatory }]}
                      >
                        <Input aria-label="Repository key" placeholder="Repository key" />
                      </Form.Item>
                      {method === 'portPerRepo' && (
                        <Form.Item name={[field.name, 'port']} rules={portRules}>
                          <InputNumber aria-label="Port" placeholder="Port" />
                        </Form.Item>
                      )}
                      <Button onClick={() => remove(field.name)}>Remove</Button>
                    </Space>
                  ))}
                  <Button onClick={() => add({ repoKey: '' })} style={{ alignSelf: 'flex-start' }}>
                    Add repository
                  </Button>
                </Flex>
              )}
            </Form.List>
          )}
          <Form.Item style={{ marginTop: 16 }}>
            <Button type="primary" htmlType="submit" loading={save.isPending}>
              Save
            </Button>
          </Form.Item>
        </Form>
      </Col>
      <Col xs={24} xl={13}>
        <Flex justify="space-between" align="center">
          <Typography.Title level={2} style={{ fontSize: 18, margin: 0 }}>
            nginx configuration
          </Typography.Title>
          <Button icon={<CopyOutlined />} onClick={copy} disabled={!snippet.data}>
            Copy
          </Button>
        </Flex>
        <Alert
          style={{ margin: '12px 0' }}
          type="info"
          showIcon
          title="Put it in /etc/nginx/conf.d/, check it with nginx -t and reload nginx. Start Granary with GRANARY_TRUST_PROXY set to nginx's address."
        />
        <QueryState
          isPending={snippet.isPending}
          error={snippet.error}
          onRetry={() => void snippet.refetch()}
          what="the nginx configuration"
        />
        {snippet.data && (
          <Input.TextArea
            aria-label="nginx configuration"
            className="proxies-snippet"
            readOnly
            value={snippet.data}
            autoSize={{ minRows: 12, maxRows: 30 }}
          />
        )}
      </Col>
    </Row>
  );
}
