import { Navigate, type RouteObject } from 'react-router';
import { lazyPage } from '../../shared/components/microfrontend.ts';
import { page } from '../../shared/routing/page.tsx';

const ProxiesPage = lazyPage(() => import('./pages/ProxiesPage.tsx'), 'ProxiesPage');
const ProxyFormPage = lazyPage(() => import('./pages/ProxyFormPage.tsx'), 'ProxyFormPage');

/**
 * spec 000 §2 admin area: proxies/configuration (list, new, edit/{proxyName}), with the reverse proxy settings
 * (spec 001 §3) as a tab of the list. Behind the admin guard; the server checks admin on every call too.
 */
export const adminProxiesRoutes: RouteObject[] = [
  page('admin/proxies/configuration', <ProxiesPage />, 'Proxies'),
  page('admin/proxies/configuration/new', <ProxyFormPage />, 'New Proxy'),
  page('admin/proxies/configuration/edit/:proxyName', <ProxyFormPage />, 'Edit Proxy'),
  {
    path: 'admin/proxies/configuration/edit',
    element: <Navigate to="/admin/proxies/configuration" replace />,
  },
];
