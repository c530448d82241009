import { Card } from 'antd';

/** The second mock screen the multi-mfe container mounts (its own chunk). */
export function MockScreenTwo() {
  return (
    <Card title={<h2 className="card-heading">Mock screen two</h2>}>
      <p style={{ margin: 0 }}>Mounted from its own chunk.</p>
    </Card>
  );
}
