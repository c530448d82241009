import type { RouteObject } from 'react-router';
import { lazyPage } from '../../shared/components/microfrontend.ts';
import { page } from '../../shared/routing/page.tsx';

const BundlesPage = lazyPage(() => import('./pages/BundlesPage.tsx'), 'BundlesPage');
const SigningKeysPage = lazyPage(() => import('./pages/admin/SigningKeysPage.tsx'), 'SigningKeysPage');
const EnvironmentsPage = lazyPage(() => import('./pages/admin/EnvironmentsPage.tsx'), 'EnvironmentsPage');
const DistributionTargetsPage = lazyPage(
  () => import('./pages/admin/DistributionTargetsPage.tsx'),
  'DistributionTargetsPage',
);

/**
 * spec 000 §2, 001 §2: the distribution main route (the old bundles path) and the release bundles route, each
 * with a child /{activeTab} (then /{name}/{version}). The redirects are in BundlesPage (rules.ts). Behind sign-in.
 */
export const releaseBundlesRoutes: RouteObject[] = [
  page('bundles', <BundlesPage area="distribution" />, 'Distribution'),
  page('bundles/:activeTab/*', <BundlesPage area="distribution" />, 'Distribution'),
  page('release-bundles', <BundlesPage area="releaseBundles" />, 'Release Bundles'),
  page('release-bundles/:activeTab/*', <BundlesPage area="releaseBundles" />, 'Release Bundles'),
];

/**
 * Issue 19 admin screens, placed where Artifactory has them (the spec names none): signing keys under Security
 * (Keys Management), environments under Configuration, distribution targets under Distribution. Behind the admin
 * guard; the server checks admin on every call.
 */
export const adminDistributionRoutes: RouteObject[] = [
  page('admin/security/signing_keys', <SigningKeysPage />, 'Signing Keys'),
  page('admin/configuration/environments', <EnvironmentsPage />, 'Environments'),
  page('admin/distribution/targets', <DistributionTargetsPage />, 'Distribution Targets'),
];
