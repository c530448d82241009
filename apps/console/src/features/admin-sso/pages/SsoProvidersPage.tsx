import { DownOutlined, PlusOutlined } from '@ant-design/icons';
import { SSO_PROVIDER_TYPES, type SsoProvider } from '@granary/contracts';
import { useQuery } from '@tanstack/react-query';
import {
  App,
  Button,
  Card,
  Dropdown,
  Empty,
  Flex,
  Popconfirm,
  Space,
  Switch,
  Table,
  Tag,
  Typography,
} from 'antd';
import { Link, useNavigate } from 'react-router';
import { AdminPage, QueryState } from '../../../shared/components/AdminPage.tsx';
import { ErrorAlert } from '../../../shared/components/ErrorAlert.tsx';
import { SsoProviderIcon } from '../../../shared/components/SsoProviderIcon.tsx';
import { TYPE_LABELS } from '../providerForm.ts';
import {
  ssoProvidersQueryOptions,
  useDeleteSsoProviderMutation,
  useSaveSsoProviderMutation,
  writeBodyOf,
} from '../queries.ts';

/** Administration → Identity and access → Single sign-on (issue 20). */
export const SSO_PATH = '/admin/configuration/sso';
const enc = encodeURIComponent;

/**
 * Issue 20 admin screen: the single sign-on providers (type icon, name, enabled, default), a new one of each type,
 * and the login page's default provider with its auto-redirect (spec 000 §4; the escape hatch stays).
 */
export function SsoProvidersPage() {
  const navigate = useNavigate();
  const { message } = App.useApp();
  const query = useQuery(ssoProvidersQueryOptions());
  const save = useSaveSsoProviderMutation();
  const remove = useDeleteSsoProviderMutation();
  const providers = query.data ?? [];
  const defaultProvider = providers.find((p) => p.isDefault);

  const update = (provider: SsoProvider, patch: Partial<SsoProvider>, done: string) =>
    save.mutate(
      { key: provider.key, body: writeBodyOf(provider, patch) },
      { onSuccess: () => message.success(done) },
    );

  return (
    <AdminPage
      title="Single sign-on"
      extra={
        <Dropdown
          trigger={['click']}
          menu={{
            items: SSO_PROVIDER_TYPES.map((type) => ({
              key: type,
              label: TYPE_LABELS[type],
              icon: <SsoProviderIcon icon={type} />,
            })),
            onClick: ({ key }) => navigate(`${SSO_PATH}/new?type=${key}`),
          }}
        >
          <Button type="primary" icon={<PlusOutlined />}>
            New provider <DownOutlined />
          </Button>
        </Dropdown>
      }
    >
      <QueryState
        isPending={query.isPending}
        error={query.error}
        onRetry={() => query.refetch()}
        what="the single sign-on providers"
      />
      {save.isError && <ErrorAlert error={save.error} />}
      {remove.isError && <ErrorAlert error={remove.error} />}
      {query.data && (
        <Card>
          <Table<SsoProvider>
            rowKey="key"
            dataSource={providers}
            pagination={false}
            locale={{
              emptyText: (
                <Empty description="No single sign-on provider yet: the login page offers the password form only." />
              ),
            }}
            columns={[
              {
                title: 'Type',
                key: 'type',
                width: 220,
                render: (_, p) => (
                  <Space>
                    <SsoProviderIcon icon={p.type} size={18} />
                    <span>{TYPE_LABELS[p.type]}</span>
                  </Space>
                ),
              },
              {
                title: 'Name',
                key: 'name',
                render: (_, p) => (
                  <Flex vertical>
                    <Link to={`${SSO_PATH}/edit/${enc(p.key)}`}>{p.name}</Link>
                    <Typography.Text type="secondary">{p.key}</Typography.Text>
                  </Flex>
                ),
              },
              {
                title: 'Enabled',
                key: 'enabled',
                width: 100,
                render: (_, p) => (
                  <Switch
                    size="small"
                    checked={p.enabled}
                    aria-label={`${p.name} enabled`}
                    loading={save.isPending && save.variables?.key === p.key}
                    onChange={(enabled) =>
                      update(p, { enabled }, enabled ? `${p.name} enabled` : `${p.name} disabled`)
                    }
                  />
                ),
              },
              {
                title: 'Login page',
                key: 'default',
                width: 260,
                render: (_, p) =>
                  p.isDefault ? (
                    <Space wrap>
                      <Tag color="#0050b3">Default</Tag>
                      {p.autoRedirect && <Tag color="#874d00">Auto-redirect</Tag>}
                    </Space>
                  ) : (
                    <Button
                      size="small"
                      disabled={!p.enabled}
                      onClick={() => update(p, { isDefault: true }, `${p.name} is the default provider`)}
                    >
                      Make default
                    </Button>
                  ),
              },
              {
                title: 'Actions',
                key: 'actions',
                width: 160,
                render: (_, p) => (
                  <Space>
                    <Link to={`${SSO_PATH}/edit/${enc(p.key)}`} aria-label={`Edit ${p.name}`}>
                      Edit
                    </Link>
                    <Popconfirm
                      title={`Delete ${p.name}?`}
                      description="Its users keep their accounts but can no longer sign in through it."
                      okText="Delete"
                      okButtonProps={{ danger: true }}
                      onConfirm={() =>
                        remove.mutate(p.key, { onSuccess: () => message.success(`${p.name} deleted`) })
                      }
                    >
                      <Button type="link" danger size="small">
                        Delete
                      </Button>
                    </Popconfirm>
                  </Space>
                ),
              },
            ]}
          />
        </Card>
      )}
      {query.data && (
        <Card title={<h2 className="card-heading">Login page</h2>}>
          {defaultProvider ? (
            <Flex vertical gap="small">
              <Space wrap>
                <Switch
                  checked={defaultProvider.autoRedirect}
                  aria-label="Send visitors straight to the default provider"
                  onChange={(autoRedirect) =>
                    update(
                      defaultProvider,
                      { autoRedirect },
                      autoRedirect ? 'Visitors now go straight to single sign-on' : 'Auto-redirect is off',
                    )
                  }
                />
                <span>
                  Send visitors of the login page straight to <strong>{defaultProvider.name}</strong>
                </span>
              </Space>
              <Typography.Text type="secondary">
                Administrators can still sign in with a password at{' '}
                <Typography.Text code copyable>
                  {`${window.location.origin}/ui/login?local=true`}
                </Typography.Text>{' '}
                when the identity provider is down. Signing out never redirects back.
              </Typography.Text>
            </Flex>
          ) : (
            <Typography.Text type="secondary">
              Make an enabled provider the default to offer it first on the login page and, if you wish, send
              visitors straight to it.
            </Typography.Text>
          )}
        </Card>
      )}
    </AdminPage>
  );
}
