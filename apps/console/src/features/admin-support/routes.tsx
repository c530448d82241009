import type { RouteObject } from 'react-router';
import { lazyPage } from '../../shared/components/microfrontend.ts';
import { page } from '../../shared/routing/page.tsx';

const SupportZonePage = lazyPage(() => import('./pages/SupportZonePage.tsx'), 'SupportZonePage');

/** spec 001 §2 admin area: support-zone. Mounted behind the sign-in and admin guards; the server checks admin too. */
export const adminSupportRoutes: RouteObject[] = [
  page('admin/support-zone', <SupportZonePage />, 'Support Zone'),
];
