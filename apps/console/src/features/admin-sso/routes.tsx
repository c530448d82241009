import { Navigate, type RouteObject } from 'react-router';
import { lazyPage } from '../../shared/components/microfrontend.ts';
import { page } from '../../shared/routing/page.tsx';

const SsoProvidersPage = lazyPage(() => import('./pages/SsoProvidersPage.tsx'), 'SsoProvidersPage');
const SsoProviderFormPage = lazyPage(() => import('./pages/SsoProviderFormPage.tsx'), 'SsoProviderFormPage');

/**
 * Issue 20: Administration → Identity and access → Single sign-on (`/admin/configuration/sso`: list, new?type=,
 * edit/{key}). Mounted behind the sign-in and admin guards; the server checks admin on every call too.
 */
export const adminSsoRoutes: RouteObject[] = [
  page('admin/configuration/sso', <SsoProvidersPage />, 'Single sign-on'),
  page('admin/configuration/sso/new', <SsoProviderFormPage />, 'New single sign-on provider'),
  page('admin/configuration/sso/edit/:key', <SsoProviderFormPage />, 'Edit single sign-on provider'),
  { path: 'admin/configuration/sso/edit', element: <Navigate to="/admin/configuration/sso" replace /> },
];
