import { Suspense } from 'react';
import type { RouteObject } from 'react-router';
import { aboutRoutes } from '../features/about/routes.tsx';
import { adminManagementRoutes } from '../features/admin-management/routes.tsx';
import { adminRepositoriesRoutes } from '../features/admin-repositories/routes.tsx';
import { buildsRoutes } from '../features/builds/routes.tsx';
import { demoRoutes } from '../features/demo/routes.tsx';
import { errorRoutes, notFoundRoute } from '../features/errors/routes.tsx';
import { profileRoutes } from '../features/profile/routes.tsx';
import { projectSettingsRoutes } from '../features/project-settings/routes.tsx';
import { releaseBundlesRoutes } from '../features/release-bundles/routes.tsx';
import { repositoriesRoutes } from '../features/repositories/routes.tsx';
import { searchRoutes } from '../features/search/routes.tsx';
import { lazyPage } from '../shared/components/microfrontend.ts';
import { RouteErrorBoundary } from '../shared/components/RouteErrorBoundary.tsx';
import { PageLoading, RequireSignIn } from '../shared/session/RequireSignIn.tsx';
import { SessionProvider } from '../shared/session/SessionProvider.tsx';
import { HomeRedirect, RequireAdminArea, ShellGuard } from './guards.tsx';
import { ShellLayout } from './ShellLayout.tsx';

const PackagesPage = lazyPage(() => import('../features/packages/pages/PackagesPage.tsx'), 'PackagesPage');
const teasers = () => import('../features/teasers/pages/TeaserPage.tsx');
const SecurityTeaserPage = lazyPage(teasers, 'SecurityTeaserPage');
const PdnTeaserPage = lazyPage(teasers, 'PdnTeaserPage');
const PipelinesTeaserPage = lazyPage(teasers, 'PipelinesTeaserPage');
const TopologyTeaserPage = lazyPage(teasers, 'TopologyTeaserPage');
const ReleaseBundlesTeaserPage = lazyPage(teasers, 'ReleaseBundlesTeaserPage');
const AdminCataloguePage = lazyPage(
  () => import('../features/admin-system/pages/AdminCataloguePage.tsx'),
  'AdminCataloguePage',
);
const GeneralConfigPage = lazyPage(
  () => import('../features/admin-system/pages/GeneralConfigPage.tsx'),
  'GeneralConfigPage',
);
const LicensesPage = lazyPage(
  () => import('../features/admin-system/pages/LicensesPage.tsx'),
  'LicensesPage',
);

/** A screen group (spec 000 §1 micro-frontend): its routes behind its own error boundary. */
function group(microfrontend: string, children: RouteObject[]): RouteObject {
  return { handle: { microfrontend }, errorElement: <RouteErrorBoundary />, children };
}

const page = (path: string, element: React.ReactNode, title: string): RouteObject => ({
  path,
  element,
  errorElement: <RouteErrorBoundary />,
  handle: { title },
});

/**
 * The main layout (spec 000 §2): the session, the shell and each screen group inside it. Loaded on the first
 * navigation outside the login area (see `discoverMainRoute` in routes.tsx), so the login route stays small.
 */
export const mainRoute: RouteObject = {
  id: 'main',
  path: '/',
  element: (
    <SessionProvider>
      <Suspense fallback={<PageLoading />}>
        <ShellLayout />
      </Suspense>
    </SessionProvider>
  ),
  errorElement: <RouteErrorBoundary />,
  children: [
    group('@granary/errors', errorRoutes),
    group('@granary/about', aboutRoutes),
    {
      element: <ShellGuard />,
      children: [
        { index: true, element: <HomeRedirect /> },
        { path: 'home', element: <HomeRedirect /> },
        group('@granary/packages', [page('packages/:packageId?/:versionId?', <PackagesPage />, 'Packages')]),
        group('@granary/teasers', [
          page('security-and-compliance-teaser', <SecurityTeaserPage />, 'Security & Compliance'),
          page('pdn-teaser', <PdnTeaserPage />, 'Peer Distribution'),
          page('pipelines-teaser', <PipelinesTeaserPage />, 'Pipelines'),
          page('topology-teaser', <TopologyTeaserPage />, 'Topology'),
          page('release-bundles-teaser', <ReleaseBundlesTeaserPage />, 'Release Bundles'),
        ]),
        group('@granary/demo', demoRoutes),
        {
          element: <RequireSignIn />,
          children: [
            group('@granary/profile', profileRoutes),
            group('@granary/repositories', repositoriesRoutes),
            group('@granary/search', searchRoutes),
            group('@granary/release-bundles', releaseBundlesRoutes),
            group('@granary/builds', buildsRoutes),
            group('@granary/project-settings', projectSettingsRoutes),
            {
              element: <RequireAdminArea />,
              children: [
                group('@granary/admin-management', adminManagementRoutes),
                group('@granary/admin-repositories', adminRepositoriesRoutes),
                group('@granary/admin-system', [
                  page('admin/artifactory/list', <AdminCataloguePage />, 'Administration'),
                  page('admin/configuration/general', <GeneralConfigPage />, 'General configuration'),
                  page('admin/license_management/licenses', <LicensesPage />, 'Licences'),
                  page('admin/topology-teaser', <TopologyTeaserPage />, 'Topology'),
                ]),
              ],
            },
          ],
        },
      ],
    },
    notFoundRoute,
  ],
};
