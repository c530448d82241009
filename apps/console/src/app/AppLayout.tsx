import { Flex, Layout, Spin } from 'antd';
import { type ReactNode, Suspense } from 'react';
import { Link, Outlet } from 'react-router';
import { GranaryLogo } from '../shared/components/GranaryLogo.tsx';

/** The common layout every screen group mounts into. The full shell (menus, user menu, guards) comes later. */
export function AppLayout({ headerExtra }: { headerExtra?: ReactNode }) {
  return (
    <Layout className="app-layout" style={{ minHeight: '100vh' }}>
      <Layout.Header className="app-header">
        <Link to="/" className="app-brand" aria-label="Granary home">
          <GranaryLogo size={30} />
          <span className="app-brand-name">Granary</span>
        </Link>
        {headerExtra && <div style={{ marginLeft: 'auto' }}>{headerExtra}</div>}
      </Layout.Header>
      <Layout.Content className="app-content">
        <Suspense
          fallback={
            <Flex justify="center" align="center" gap="middle" className="app-page-loading" role="status">
              <Spin size="large" />
              <span>Loading…</span>
            </Flex>
          }
        >
          <Outlet />
        </Suspense>
      </Layout.Content>
      <Layout.Footer className="app-footer">Granary · self-hosted artifact repository</Layout.Footer>
    </Layout>
  );
}
