import { CloudServerOutlined, DatabaseOutlined, PartitionOutlined } from '@ant-design/icons';
import { Card, Flex, Typography } from 'antd';
import type { ReactNode } from 'react';
import { Link } from 'react-router';
import { AdminPage } from '../../../shared/components/AdminPage.tsx';
import './NewRepository.css';

export const KINDS: {
  rclass: 'local' | 'remote' | 'virtual';
  title: string;
  text: string;
  icon: ReactNode;
}[] = [
  {
    rclass: 'local',
    title: 'Local',
    text: 'Files you deploy yourself, stored on this server.',
    icon: <DatabaseOutlined />,
  },
  {
    rclass: 'remote',
    title: 'Remote',
    text: 'A caching proxy of another repository on the network.',
    icon: <CloudServerOutlined />,
  },
  {
    rclass: 'virtual',
    title: 'Virtual',
    text: 'One URL over several local and remote repositories.',
    icon: <PartitionOutlined />,
  },
];

/** spec 000 §2 admin.repositories.new: first choose the kind of repository. */
export function NewRepositoryPage() {
  return (
    <AdminPage title="New Repository" trail={[['Repositories', '/admin/repositories']]}>
      <Typography.Paragraph>Choose the kind of repository to create.</Typography.Paragraph>
      <Flex wrap gap="middle">
        {KINDS.map((k) => (
          <Link key={k.rclass} to={`/admin/repositories/${k.rclass}/new`} className="new-repo-card-link">
            <Card hoverable className="new-repo-card">
              <Flex vertical align="center" gap="small">
                <span aria-hidden style={{ fontSize: 34, color: '#1f5f3a' }}>
                  {k.icon}
                </span>
                <Typography.Title level={2} style={{ fontSize: 18, margin: 0 }}>
                  {k.title}
                </Typography.Title>
                <Typography.Text type="secondary" style={{ textAlign: 'center' }}>
                  {k.text}
                </Typography.Text>
              </Flex>
            </Card>
          </Link>
        ))}
      </Flex>
    </AdminPage>
  );
}
