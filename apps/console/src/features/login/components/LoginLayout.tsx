import { Flex } from 'antd';
import { Suspense } from 'react';
import { Outlet } from 'react-router';
import { GranaryLogo } from '../../../shared/components/GranaryLogo.tsx';
import { PageLoading } from '../../../shared/session/RequireSignIn.tsx';
import '../../../shared/styles/accessibleForms.css';
import './LoginLayout.css';

/** The login area's frame (spec 000 §2): the product mark and one centred card, no menus. */
export function LoginLayout() {
  return (
    <main className="login-layout">
      <Flex vertical align="center" gap="large" className="login-column">
        <Flex align="center" gap="small">
          <GranaryLogo size={40} />
          <span className="login-brand">Granary</span>
        </Flex>
        {/* A plain panel, not antd's Card: Card brings Tabs and Skeleton into the login page's first load. */}
        <div className="login-card">
          <Suspense fallback={<PageLoading />}>
            <Outlet />
          </Suspense>
        </div>
        <span className="login-tagline">Self-hosted artifact repository</span>
      </Flex>
    </main>
  );
}
