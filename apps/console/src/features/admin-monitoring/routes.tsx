import type { RouteObject } from 'react-router';
import { lazyPage } from '../../shared/components/microfrontend.ts';
import { page } from '../../shared/routing/page.tsx';

const ServiceStatusPage = lazyPage(() => import('./pages/ServiceStatusPage.tsx'), 'ServiceStatusPage');
const TopologyPage = lazyPage(() => import('./pages/TopologyPage.tsx'), 'TopologyPage');
const PdnPage = lazyPage(() => import('./pages/PdnPage.tsx'), 'PdnPage');

/**
 * spec 001 §2 admin monitoring/service-status and monitoring/pdn, spec 000 §2 reserved path
 * /admin/mission_control/topology. Mounted behind the sign-in and admin guards; the server checks admin on every
 * call too.
 */
export const adminMonitoringRoutes: RouteObject[] = [
  page('admin/monitoring/service-status', <ServiceStatusPage />, 'Service Status'),
  page('admin/mission_control/topology', <TopologyPage />, 'Topology'),
  page('admin/monitoring/pdn', <PdnPage />, 'Peer Distribution'),
];
