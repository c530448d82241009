import { Breadcrumb, Flex, Typography } from 'antd';
import type { ReactNode } from 'react';
import { Link } from 'react-router';
import '../../../shared/styles/accessibleForms.css';

export interface RepositoriesAdminPageProps {
  title: string;
  /** Breadcrumb trail between "Administration" and the title: [label, path]. */
  trail?: [string, string][];
  extra?: ReactNode;
  children: ReactNode;
}

/** The frame of the repository admin screens: breadcrumb, one h1, actions on the right, the document title. */
export function RepositoriesAdminPage({ title, trail = [], extra, children }: RepositoriesAdminPageProps) {
  return (
    <Flex vertical gap="middle">
      <title>{`${title} - Granary`}</title>
      <Breadcrumb
        items={[
          { title: 'Administration' },
          ...trail.map(([label, to]) => ({ title: <Link to={to}>{label}</Link> })),
          { title },
        ]}
      />
      <Flex justify="space-between" align="center" wrap gap="middle">
        <Typography.Title level={1} style={{ margin: 0, fontSize: 26 }}>
          {title}
        </Typography.Title>
        {extra}
      </Flex>
      {children}
    </Flex>
  );
}
