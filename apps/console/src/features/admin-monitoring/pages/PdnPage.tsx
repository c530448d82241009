import { Card, Flex, List, Typography } from 'antd';
import { Link } from 'react-router';
import { AdminPage } from '../../../shared/components/AdminPage.tsx';

export const PDN_PATH = '/admin/monitoring/pdn';

const POINTS = [
  'Peers are small caches placed in each site or data centre, next to the clients that download',
  'A release bundle distributed to a site is fetched once from this server, then shared between its peers',
  'Each peer reports which files it holds and the progress of every transfer',
];

/**
 * spec 001 §2 admin monitoring/pdn (issue 15): the distribution peers and their transfer state once release-bundle
 * distribution exists; until then, what peer distribution is and how it will be enabled.
 */
export function PdnPage() {
  return (
    <AdminPage title="Peer Distribution">
      <Flex vertical gap="large">
        <Typography.Paragraph style={{ margin: 0 }}>
          Peer distribution spreads large downloads across peers close to the clients, so a fleet pulls each
          file once per site instead of once per client.
        </Typography.Paragraph>
        <Card title={<h2 className="card-heading">How it works</h2>}>
          <List dataSource={POINTS} renderItem={(point) => <List.Item>{point}</List.Item>} />
        </Card>
        <Card title={<h2 className="card-heading">Distribution peers</h2>}>
          <Typography.Paragraph>
            No distribution peers are registered: peer distribution arrives with release-bundle distribution,
            which this installation does not run yet.
          </Typography.Paragraph>
          <Typography.Paragraph type="secondary" style={{ margin: 0 }}>
            Once it does, peers register here with their site and transfer state. Until then the nodes of this
            installation are on the <Link to="/admin/mission_control/topology">topology</Link>.
          </Typography.Paragraph>
        </Card>
      </Flex>
    </AdminPage>
  );
}
