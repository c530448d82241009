import type { RouteObject } from 'react-router';
import { lazyPage } from '../../shared/components/microfrontend.ts';
import { page } from '../../shared/routing/page.tsx';

const IntegrationsPage = lazyPage(() => import('./pages/IntegrationsPage.tsx'), 'IntegrationsPage');
const VendorInstancesPage = lazyPage(() => import('./pages/VendorInstancesPage.tsx'), 'VendorInstancesPage');
const SelectReposPage = lazyPage(() => import('./pages/SelectReposPage.tsx'), 'SelectReposPage');
const ConsentPage = lazyPage(() => import('./pages/ConsentPage.tsx'), 'ConsentPage');
const ApplicationIntegrationsPage = lazyPage(
  () => import('./pages/ApplicationIntegrationsPage.tsx'),
  'ApplicationIntegrationsPage',
);
const NewApplicationPage = lazyPage(() => import('./pages/NewApplicationPage.tsx'), 'NewApplicationPage');

/**
 * spec 001 §2 Integrations (issue 18), for every signed-in user: /integrations (name integrations),
 * integrations/{vendorName} (integrations.vendor.list; admins, the server checks), the git scanning route
 * (gitRepoScan.selectRepos, ?vcsType&integrationId) and the OAuth consent screen the authorization server sends the
 * browser to (`/ui/oauth/consent?request=…`).
 */
export const integrationsRoutes: RouteObject[] = [
  page('integrations', <IntegrationsPage />, 'Integrations'),
  page('integrations/gitRepoScan/selectRepos', <SelectReposPage />, 'Select Repositories'),
  page('integrations/:vendorName', <VendorInstancesPage />, 'Integrations'),
  page('oauth/consent', <ConsentPage />, 'Authorize application'),
];

/** spec 001 §2 admin children configuration/integrations and /new: the application integrations (admins). */
export const adminIntegrationsRoutes: RouteObject[] = [
  page('admin/configuration/integrations', <ApplicationIntegrationsPage />, 'Integrations'),
  page('admin/configuration/integrations/new', <NewApplicationPage />, 'New Integration'),
];
