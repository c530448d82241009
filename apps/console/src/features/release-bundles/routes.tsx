import type { RouteObject } from 'react-router';
import { lazyPage } from '../../shared/components/microfrontend.ts';
import { page } from '../../shared/routing/page.tsx';

const BundlesPage = lazyPage(() => import('./pages/BundlesPage.tsx'), 'BundlesPage');

/**
 * spec 000 §2, 001 §2: the distribution main route (the old bundles path) and the release bundles route, each
 * with a child /{activeTab}. The redirects are in BundlesPage (rules.ts). Mounted behind sign-in.
 */
export const releaseBundlesRoutes: RouteObject[] = [
  page('bundles', <BundlesPage area="distribution" />, 'Distribution'),
  page('bundles/:activeTab/*', <BundlesPage area="distribution" />, 'Distribution'),
  page('release-bundles', <BundlesPage area="releaseBundles" />, 'Release Bundles'),
  page('release-bundles/:activeTab/*', <BundlesPage area="releaseBundles" />, 'Release Bundles'),
];
