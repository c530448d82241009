import type { RouteObject } from 'react-router';
import { lazyPage } from '../../shared/components/microfrontend.ts';
import { page } from '../../shared/routing/page.tsx';

const AdminCataloguePage = lazyPage(() => import('./pages/AdminCataloguePage.tsx'), 'AdminCataloguePage');
const GeneralConfigPage = lazyPage(() => import('./pages/GeneralConfigPage.tsx'), 'GeneralConfigPage');
const LicensesPage = lazyPage(() => import('./pages/LicensesPage.tsx'), 'LicensesPage');

/**
 * spec 000 §2 admin area: the settings catalogue, general configuration and licences. Mounted behind the sign-in
 * and admin guards.
 */
export const adminSystemRoutes: RouteObject[] = [
  page('admin/artifactory/list', <AdminCataloguePage />, 'Administration'),
  page('admin/configuration/general', <GeneralConfigPage />, 'General configuration'),
  page('admin/license_management/licenses', <LicensesPage />, 'Licences'),
];
