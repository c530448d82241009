import { ReloadOutlined } from '@ant-design/icons';
import type { WebhookAttempt } from '@granary/contracts';
import { useQuery } from '@tanstack/react-query';
import { App, Button, Descriptions, Drawer, Flex, Table, Tag, Typography } from 'antd';
import { QueryState } from '../../../shared/components/AdminPage.tsx';
import { deliveriesQueryOptions, useRedeliverMutation } from '../queries.ts';

export interface DeliveryLogDrawerProps {
  /** The subscription whose log is open, or null when closed. */
  webhookKey: string | null;
  onClose: () => void;
}

const time = (iso: string) => {
  const d = new Date(iso);
  return Number.isNaN(d.getTime()) ? iso : d.toLocaleString();
};

/** What the attempt came to: the receiver's status, or the error when it did not answer. */
export function AttemptStatus({ attempt }: { attempt: WebhookAttempt }) {
  const status = attempt.response?.status;
  if (status !== undefined) {
    const ok = status >= 200 && status < 300;
    return <Tag color={ok ? '#1f5f3a' : '#a8071a'}>{status}</Tag>;
  }
  return <Tag color={attempt.error ? '#a8071a' : '#0050b3'}>{attempt.error ? 'No answer' : 'Pending'}</Tag>;
}

/** A JSON body indented for reading; anything else as sent. */
function pretty(body: string): string {
  try {
    return JSON.stringify(JSON.parse(body), null, 2);
  } catch {
    return body;
  }
}

function HeadersBlock({ headers }: { headers: Record<string, string> }) {
  const text = Object.entries(headers)
    .map(([name, value]) => `${name}: ${value}`)
    .join('\n');
  return <pre className="webhook-pre">{text || '(none)'}</pre>;
}

function AttemptDetails({ attempt }: { attempt: WebhookAttempt }) {
  return (
    <Flex vertical gap="small">
      <Descriptions
        size="small"
        column={1}
        bordered
        items={[
          { key: 'request', label: 'Request', children: `${attempt.request.method} ${attempt.request.url}` },
          { key: 'delivery', label: 'Delivery', children: attempt.delivery_id },
          { key: 'event', label: 'Event id', children: attempt.event_id },
          ...(attempt.error ? [{ key: 'error', label: 'Error', children: attempt.error }] : []),
        ]}
      />
      <Typography.Title level={3} style={{ fontSize: 14, margin: 0 }}>
        Request headers
      </Typography.Title>
      <HeadersBlock headers={attempt.request.headers} />
      <Typography.Title level={3} style={{ fontSize: 14, margin: 0 }}>
        Request body
      </Typography.Title>
      <pre className="webhook-pre">{pretty(attempt.request.body) || '(empty)'}</pre>
      <Typography.Title level={3} style={{ fontSize: 14, margin: 0 }}>
        Response
      </Typography.Title>
      {attempt.response ? (
        <>
          <Typography.Text>Status {attempt.response.status}</Typography.Text>
          <HeadersBlock headers={attempt.response.headers} />
          <pre className="webhook-pre">{pretty(attempt.response.body) || '(empty)'}</pre>
        </>
      ) : (
        <Typography.Text type="secondary">
          No response{attempt.error ? `: ${attempt.error}` : ''}
        </Typography.Text>
      )}
    </Flex>
  );
}

/** The delivery log of one webhook (issue 14): every attempt, newest first, with its request and response; redeliver one. */
export function DeliveryLogDrawer({ webhookKey, onClose }: DeliveryLogDrawerProps) {
  return (
    <Drawer
      open={webhookKey !== null}
      onClose={onClose}
      size="large"
      title={webhookKey ? `Delivery log: ${webhookKey}` : 'Delivery log'}
      destroyOnHidden
    >
      {webhookKey && <DeliveryLog webhookKey={webhookKey} />}
    </Drawer>
  );
}

function DeliveryLog({ webhookKey }: { webhookKey: string }) {
  const { message } = App.useApp();
  const attempts = useQuery(deliveriesQueryOptions(webhookKey));
  const redeliver = useRedeliverMutation(webhookKey);
  return (
    <Flex vertical gap="middle">
      <Flex justify="space-between" align="center">
        <Typography.Text type="secondary">Every attempt of the last 30 days, newest first.</Typography.Text>
        <Button
          icon={<ReloadOutlined />}
          onClick={() => void attempts.refetch()}
          loading={attempts.isFetching}
        >
          Refresh
        </Button>
      </Flex>
      <QueryState
        isPending={attempts.isPending}
        error={attempts.error}
        onRetry={() => void attempts.refetch()}
        what="the delivery log"
      />
      {attempts.data && (
        <Table<WebhookAttempt>
          rowKey="id"
          size="small"
          dataSource={attempts.data}
          pagination={{ pageSize: 20, hideOnSinglePage: true }}
          locale={{ emptyText: 'No deliveries yet' }}
          expandable={{ expandedRowRender: (attempt) => <AttemptDetails attempt={attempt} /> }}
          columns={[
            { title: 'Time', dataIndex: 'started_at', render: (at: string) => time(at) },
            {
              title: 'Event',
              key: 'event',
              render: (_, a) => (
                <>
                  {a.domain}: {a.event_type} {a.test && <Tag>test</Tag>}
                </>
              ),
            },
            { title: 'Attempt', dataIndex: 'attempt', width: 80 },
            { title: 'Status', key: 'status', render: (_, a) => <AttemptStatus attempt={a} /> },
            { title: 'Duration', dataIndex: 'duration_ms', render: (ms: number) => `${ms} ms` },
            {
              title: 'Actions',
              key: 'actions',
              render: (_, a) =>
                a.test ? null : (
                  <Button
                    size="small"
                    aria-label={`Redeliver attempt ${a.attempt} of ${a.domain}: ${a.event_type}`}
                    loading={redeliver.isPending && redeliver.variables === a.delivery_id}
                    onClick={() =>
                      redeliver.mutate(a.delivery_id, {
                        onSuccess: () => message.success('Delivery queued again'),
                        onError: (error) => message.error(error.message),
                      })
                    }
                  >
                    Redeliver
                  </Button>
                ),
            },
          ]}
        />
      )}
    </Flex>
  );
}
