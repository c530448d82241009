import { GRANARY_SERVICE } from '@granary/contracts';
import { useQuery } from '@tanstack/react-query';
import { Card, Flex, Space, Typography } from 'antd';
import { Link } from 'react-router';
import { AdminPage, QueryState } from '../../../shared/components/AdminPage.tsx';
import { TopologyDiagram } from '../components/TopologyDiagram.tsx';
import { serviceStatusQueryOptions } from '../queries.ts';

export const TOPOLOGY_PATH = '/admin/mission_control/topology';

function Legend({ colour, label, dashed }: { colour: string; label: string; dashed?: boolean }) {
  return (
    <Space size={6}>
      <svg width={28} height={10} aria-hidden="true">
        <line
          x1={0}
          y1={5}
          x2={28}
          y2={5}
          stroke={colour}
          strokeWidth={3}
          strokeDasharray={dashed ? '6 5' : undefined}
        />
      </svg>
      <Typography.Text>{label}</Typography.Text>
    </Space>
  );
}

/**
 * spec 000 §2 reserved path /admin/mission_control/topology (issue 15): the nodes of this installation, the
 * services in each with their health, and the database and blob store they share — drawn. Refreshed at the
 * heartbeat interval.
 */
export function TopologyPage() {
  const query = useQuery(serviceStatusQueryOptions());
  const nodes = query.data?.services[GRANARY_SERVICE]?.nodes ?? [];
  const online = nodes.filter((n) => n.status === 'Online').length;
  return (
    <AdminPage title="Topology">
      <Typography.Paragraph style={{ margin: 0 }}>
        Every node of this installation with the health of its parts, and the database and blob store they
        share. <Link to="/admin/monitoring/service-status">Service status</Link> lists the same with details.
      </Typography.Paragraph>
      <QueryState
        isPending={query.isPending}
        error={query.error}
        onRetry={() => void query.refetch()}
        what="the topology"
      />
      {query.data && (
        <Card
          title={
            <h2 className="card-heading">
              {nodes.length} node{nodes.length === 1 ? '' : 's'}, {online} Online
            </h2>
          }
        >
          <Flex vertical gap="middle">
            <div style={{ overflowX: 'auto' }}>
              <TopologyDiagram nodes={nodes} />
            </div>
            <Space size="large" wrap>
              <Legend colour="#1f5f3a" label="Healthy" />
              <Legend colour="#a8071a" label="Failing" />
              <Legend colour="#737373" label="Node offline" dashed />
            </Space>
          </Flex>
        </Card>
      )}
    </AdminPage>
  );
}
