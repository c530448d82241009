import { ReloadOutlined } from '@ant-design/icons';
import type { MicroService, ServiceNode } from '@granary/contracts';
import { useQuery } from '@tanstack/react-query';
import {
  Alert,
  App,
  Button,
  Card,
  Empty,
  Flex,
  Popconfirm,
  Select,
  Space,
  Table,
  Tag,
  Typography,
} from 'antd';
import { useEffect } from 'react';
import { Link } from 'react-router';
import { isApiError } from '../../../shared/api/index.ts';
import { AdminPage, QueryState } from '../../../shared/components/AdminPage.tsx';
import { formatTime, formatUptime, isRemovable, STATE_COLOR } from '../components/statusFormat.ts';
import { haStatusQueryOptions, serviceStatusQueryOptions, useRemoveNodeMutation } from '../queries.ts';
import { useServiceStatusState } from '../serviceStatusState.ts';

export const SERVICE_STATUS_PATH = '/admin/monitoring/service-status';

function StateTag({ value }: { value: keyof typeof STATE_COLOR }) {
  return <Tag color={STATE_COLOR[value]}>{value}</Tag>;
}

function MicroServices({ node }: { node: ServiceNode }) {
  const parts = Object.values(node.micro_services);
  return (
    <Table<MicroService>
      size="small"
      rowKey="name"
      pagination={false}
      dataSource={parts}
      locale={{ emptyText: 'This node has not reported its services yet' }}
      columns={[
        {
          title: 'Service',
          dataIndex: 'name',
          render: (name: string, part) => (
            <Space size={4}>
              <Typography.Text code>{name}</Typography.Text>
              {part.critical && <Typography.Text type="secondary">(serving)</Typography.Text>}
            </Space>
          ),
        },
        {
          title: 'Health',
          dataIndex: 'state',
          render: (state: MicroService['state']) => <StateTag value={state} />,
        },
        { title: 'Details', dataIndex: 'message' },
        { title: 'Uptime', dataIndex: 'uptime', render: (uptime: number) => formatUptime(uptime) },
        { title: 'Last heartbeat', dataIndex: 'last_heartbeat', render: (at: string) => formatTime(at) },
      ]}
    />
  );
}

/**
 * spec 001 §2 admin monitoring/service-status, §3 and §4: the services of this installation keyed by type, with
 * their nodes (status, uptime, last heartbeat) and each node's parts and their health. Only HEALTHY services
 * count as available and are offered in the service selector with their nodes. A node silent for a day can be
 * removed (spec 001 §7 `DELETE /access/api/v1/topology/{serviceId}/{nodeId}`).
 */
export function ServiceStatusPage() {
  const { message } = App.useApp();
  const query = useQuery(serviceStatusQueryOptions());
  const ha = useQuery(haStatusQueryOptions());
  const remove = useRemoveNodeMutation();
  const [state, dispatch] = useServiceStatusState();

  useEffect(() => {
    if (query.data) dispatch({ type: 'statusLoaded', status: query.data });
  }, [query.data, dispatch]);

  const unavailable = Object.entries(state.status?.services ?? {})
    .filter(([name]) => !state.productList.includes(name))
    .map(([name]) => name);
  const haNodes = Object.values(ha.data ?? {}).flat();
  const online = haNodes.filter((n) => n.status === 'Online').length;
  const shownNode =
    state.nodeList.find((n) => n.node_id === state.selectedNode) ??
    state.nodeList.find((n) => n.current) ??
    state.nodeList[0];

  const onRemove = (node: ServiceNode) =>
    remove.mutate(
      { nodeId: node.node_id, serviceId: node.service_id },
      {
        onSuccess: () => message.success(`Node ${node.node_id} removed`),
        onError: (error) => message.error(isApiError(error) ? error.message : 'Could not remove the node'),
      },
    );

  return (
    <AdminPage
      title="Service Status"
      extra={
        <Space wrap>
          <Select
            aria-label="Service"
            style={{ minWidth: 180 }}
            value={state.productList.includes(state.selectedProduct) ? state.selectedProduct : undefined}
            placeholder="No available service"
            options={state.productList.map((p) => ({ value: p, label: p }))}
            onChange={(product: string) => {
              dispatch({ type: 'serviceChanged' });
              dispatch({ type: 'selectProduct', product });
            }}
          />
          <Button icon={<ReloadOutlined />} onClick={() => void query.refetch()} loading={query.isFetching}>
            Refresh
          </Button>
          <Button
            onClick={() => {
              dispatch({ type: 'reset' });
              void query.refetch();
            }}
          >
            Reset
          </Button>
        </Space>
      }
    >
      <QueryState
        isPending={query.isPending}
        error={query.error}
        onRetry={() => void query.refetch()}
        what="the service status"
      />
      {query.data && (
        <Flex vertical gap="middle">
          <Typography.Paragraph style={{ margin: 0 }}>
            {state.productList.length} of {Object.keys(query.data.services).length} service
            {Object.keys(query.data.services).length === 1 ? '' : 's'} available
            {ha.data && (
              <>
                {' · '}
                High availability: {online} of {haNodes.length} node{haNodes.length === 1 ? '' : 's'} Online
              </>
            )}
            {' · '}
            <Link to="/admin/mission_control/topology">See the topology</Link>
          </Typography.Paragraph>
          {unavailable.length > 0 && (
            <Alert
              type="error"
              showIcon
              title={`Unavailable (not HEALTHY): ${unavailable.join(', ')}`}
              description="A service is available while one of its nodes is Online and serving."
            />
          )}
          <Card title={<h2 className="card-heading">Nodes of {state.selectedProduct}</h2>}>
            {state.nodeList.length === 0 ? (
              <Empty description="No available service selected" />
            ) : (
              <Table<ServiceNode>
                rowKey="node_id"
                size="middle"
                pagination={false}
                dataSource={state.nodeList}
                rowClassName={(n) => (n.node_id === shownNode?.node_id ? 'ant-table-row-selected' : '')}
                onRow={(n) => ({ onClick: () => dispatch({ type: 'selectNode', nodeId: n.node_id }) })}
                columns={[
                  {
                    title: 'Node',
                    dataIndex: 'node_id',
                    render: (id: string, n) => (
                      <Space size={4} wrap>
                        <Button
                          type="link"
                          size="small"
                          style={{ padding: 0 }}
                          onClick={() => dispatch({ type: 'selectNode', nodeId: id })}
                        >
                          {id}
                        </Button>
                        {n.current && <Tag>this node</Tag>}
                      </Space>
                    ),
                  },
                  { title: 'Host', dataIndex: 'host_name' },
                  {
                    title: 'Status',
                    dataIndex: 'status',
                    render: (s: ServiceNode['status']) => <StateTag value={s} />,
                  },
                  {
                    title: 'Health',
                    dataIndex: 'state',
                    render: (s: ServiceNode['state']) => <StateTag value={s} />,
                  },
                  { title: 'Version', dataIndex: 'version' },
                  { title: 'Uptime', dataIndex: 'uptime', render: (u: number) => formatUptime(u) },
                  {
                    title: 'Last heartbeat',
                    dataIndex: 'last_heartbeat',
                    render: (at: string) => formatTime(at),
                  },
                  {
                    title: <span className="sr-only">Actions</span>,
                    key: 'actions',
                    render: (_: unknown, n) =>
                      isRemovable(n) ? (
                        <Popconfirm
                          title={`Remove node ${n.node_id}?`}
                          description="It has been silent for over a day; it reappears if it starts again."
                          onConfirm={() => onRemove(n)}
                        >
                          <Button danger size="small" aria-label={`Remove ${n.node_id}`}>
                            Remove
                          </Button>
                        </Popconfirm>
                      ) : null,
                  },
                ]}
              />
            )}
          </Card>
          {shownNode && (
            <Card
              title={<h2 className="card-heading">Services on {shownNode.node_id}</h2>}
              extra={
                <Typography.Text type="secondary">
                  {shownNode.url} · started {formatTime(shownNode.start_time)}
                </Typography.Text>
              }
            >
              <MicroServices node={shownNode} />
            </Card>
          )}
        </Flex>
      )}
    </AdminPage>
  );
}
