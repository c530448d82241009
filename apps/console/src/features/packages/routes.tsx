import type { RouteObject } from 'react-router';
import { lazyPage } from '../../shared/components/microfrontend.ts';
import { page } from '../../shared/routing/page.tsx';

const PackagesPage = lazyPage(() => import('./pages/PackagesPage.tsx'), 'PackagesPage');

/**
 * spec 001 §2 /packages/:packageId?/:versionId?: the list, a package and a version. Mounted behind the shell guard
 * only, not sign-in: an anonymous visitor the shell lets in sees packages.
 */
export const packagesRoutes: RouteObject[] = [
  page('packages/:packageId?/:versionId?', <PackagesPage />, 'Packages'),
];
