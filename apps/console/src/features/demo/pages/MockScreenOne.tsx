import { Card } from 'antd';

/** The first mock screen the multi-mfe container mounts (its own chunk). */
export function MockScreenOne() {
  return (
    <Card title={<h2 className="card-heading">Mock screen one</h2>}>
      <p style={{ margin: 0 }}>Mounted from its own chunk.</p>
    </Card>
  );
}
