import { PlusOutlined, WarningOutlined } from '@ant-design/icons';
import type { WebhookDeliverySummary, WebhookSubscription } from '@granary/contracts';
import { useQuery } from '@tanstack/react-query';
import {
  App,
  Button,
  Card,
  Empty,
  Flex,
  Input,
  Popconfirm,
  Space,
  Switch,
  Table,
  Tag,
  Typography,
} from 'antd';
import { useMemo, useState } from 'react';
import { Link, useNavigate } from 'react-router';
import { AdminPage, QueryState } from '../../../shared/components/AdminPage.tsx';
import { DeliveryLogDrawer } from '../components/DeliveryLogDrawer.tsx';
import { useDeleteWebhookMutation, useToggleWebhookMutation, webhooksQueryOptions } from '../queries.ts';
import '../webhooks.css';

export const WEBHOOKS_PATH = '/admin/configuration/webhooks';
const enc = encodeURIComponent;

/** Dark solid colours: white text on them keeps WCAG AA contrast (antd's light presets do not). */
export const STATUS_COLOR: Record<WebhookDeliverySummary['status'], string> = {
  delivered: '#1f5f3a',
  failed: '#a8071a',
  retrying: '#874d00',
  pending: '#0050b3',
};

function LastDelivery({ last }: { last: WebhookDeliverySummary | null | undefined }) {
  if (!last) return <Typography.Text type="secondary">Never</Typography.Text>;
  const at = new Date(last.at);
  return (
    <Space size={4} wrap>
      <Tag color={STATUS_COLOR[last.status] ?? 'default'}>
        {last.status}
        {last.response_status ? ` (${last.response_status})` : ''}
      </Tag>
      <Typography.Text type="secondary">
        {Number.isNaN(at.getTime()) ? last.at : at.toLocaleString()}
      </Typography.Text>
    </Space>
  );
}

/** `domain: type, type` for the list's Events column. */
export const eventsLabel = (s: WebhookSubscription) =>
  `${s.event_filter.domain}: ${s.event_filter.event_types.join(', ')}`;

/** spec 001 §2 admin configuration/webhooks (list): name, URL, events, enabled, last delivery; edit, log, delete. */
export function WebhooksPage() {
  const { message } = App.useApp();
  const navigate = useNavigate();
  const query = useQuery(webhooksQueryOptions());
  const remove = useDeleteWebhookMutation();
  const toggle = useToggleWebhookMutation();
  const [search, setSearch] = useState('');
  const [logOf, setLogOf] = useState<string | null>(null);
  const rows = useMemo(() => {
    const term = search.trim().toLowerCase();
    return (query.data ?? []).filter(
      (s) => s.key.toLowerCase().includes(term) || (s.handlers[0]?.url ?? '').toLowerCase().includes(term),
    );
  }, [query.data, search]);
  const create = () => navigate(`${WEBHOOKS_PATH}/new`);

  return (
    <AdminPage
      title="Webhooks"
      extra={
        <Button type="primary" icon={<PlusOutlined />} onClick={create}>
          New Webhook
        </Button>
      }
    >
      <Card variant="borderless">
        <Flex vertical gap="middle">
          <QueryState
            isPending={query.isPending}
            error={query.error}
            onRetry={() => void query.refetch()}
            what="the webhooks"
          />
          {query.data && query.data.length === 0 && (
            <Empty description="No webhooks yet. A webhook tells another system (CI, chat, ticketing) when something changes here.">
              <Button type="primary" icon={<PlusOutlined />} onClick={create}>
                Create a webhook
              </Button>
            </Empty>
          )}
          {query.data && query.data.length > 0 && (
            <>
              <Input.Search
                aria-label="Search webhooks"
                placeholder="Search webhooks"
                allowClear
                value={search}
                onChange={(e) => setSearch(e.target.value)}
                style={{ maxWidth: 320 }}
              />
              <Table<WebhookSubscription>
                rowKey="key"
                dataSource={rows}
                pagination={{ pageSize: 25, hideOnSinglePage: true }}
                columns={[
                  {
                    title: 'Name',
                    dataIndex: 'key',
                    defaultSortOrder: 'ascend',
                    sorter: (a, b) => a.key.localeCompare(b.key),
                    render: (key: string, s) => (
                      <Flex vertical>
                        <Link to={`${WEBHOOKS_PATH}/edit/${enc(key)}`}>{key}</Link>
                        {s.description && <Typography.Text type="secondary">{s.description}</Typography.Text>}
                      </Flex>
                    ),
                  },
                  {
                    title: 'URL',
                    key: 'url',
                    render: (_, s) => (
                      <Typography.Text className="webhook-url">{s.handlers[0]?.url}</Typography.Text>
                    ),
                  },
                  { title: 'Events', key: 'events', render: (_, s) => eventsLabel(s) },
                  {
                    title: 'Enabled',
                    key: 'enabled',
                    render: (_, s) => (
                      <Space size="small" align="start">
                        <Switch
                          aria-label={`Enable ${s.key}`}
                          checked={s.enabled}
                          loading={toggle.isPending && toggle.variables?.subscription.key === s.key}
                          onChange={(enabled) =>
                            toggle.mutate(
                              { subscription: s, enabled },
                              {
                                onSuccess: () =>
                                  message.success(`Webhook ${s.key} ${enabled ? 'enabled' : 'disabled'}`),
                                onError: (error) => message.error(error.message),
                              },
                            )
                          }
                        />
                        {!s.enabled && s.disabled_reason && (
                          <Typography.Text type="warning" className="webhook-disabled-reason">
                            <WarningOutlined /> {s.disabled_reason}
                          </Typography.Text>
                        )}
                      </Space>
                    ),
                  },
                  {
                    title: 'Last delivery',
                    key: 'last',
                    render: (_, s) => <LastDelivery last={s.last_delivery} />,
                  },
                  {
                    title: 'Actions',
                    key: 'actions',
                    render: (_, s) => (
                      <Space size="small" wrap>
                        <Button
                          size="small"
                          onClick={() => navigate(`${WEBHOOKS_PATH}/edit/${enc(s.key)}`)}
                          aria-label={`Edit ${s.key}`}
                        >
                          Edit
                        </Button>
                        <Button
                          size="small"
                          onClick={() => setLogOf(s.key)}
                          aria-label={`Delivery log of ${s.key}`}
                        >
                          Delivery log
                        </Button>
                        <Popconfirm
                          title={`Delete webhook ${s.key}?`}
                          description="Its delivery log is deleted with it."
                          okText="Delete"
                          okButtonProps={{ danger: true }}
                          onConfirm={() =>
                            remove.mutateAsync(s.key).then(
                              () => message.success(`Webhook ${s.key} deleted`),
                              (error: Error) => message.error(error.message),
                            )
                          }
                        >
                          <Button size="small" danger aria-label={`Delete ${s.key}`}>
                            Delete
                          </Button>
                        </Popconfirm>
                      </Space>
                    ),
                  },
                ]}
              />
            </>
          )}
        </Flex>
      </Card>
      <DeliveryLogDrawer webhookKey={logOf} onClose={() => setLogOf(null)} />
    </AdminPage>
  );
}
