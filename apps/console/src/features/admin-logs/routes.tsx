import type { RouteObject } from 'react-router';
import { lazyPage } from '../../shared/components/microfrontend.ts';
import { page } from '../../shared/routing/page.tsx';

const SystemLogsPage = lazyPage(() => import('./pages/SystemLogsPage.tsx'), 'SystemLogsPage');

/**
 * spec 001 §2 admin area: monitoring/system_logs. Mounted behind the sign-in and admin guards; the server
 * checks admin on every call too.
 */
export const adminLogsRoutes: RouteObject[] = [
  page('admin/monitoring/system_logs', <SystemLogsPage />, 'System Logs'),
];
