import { Suspense } from 'react';
import type { RouteObject } from 'react-router';
import { aboutRoutes } from '../features/about/routes.tsx';
import { adminLogsRoutes } from '../features/admin-logs/routes.tsx';
import { adminManagementRoutes } from '../features/admin-management/routes.tsx';
import { adminMonitoringRoutes } from '../features/admin-monitoring/routes.tsx';
import { adminProxiesRoutes } from '../features/admin-proxies/routes.tsx';
import { adminRepositoriesRoutes } from '../features/admin-repositories/routes.tsx';
import { adminSsoRoutes } from '../features/admin-sso/routes.tsx';
import { adminSupportRoutes } from '../features/admin-support/routes.tsx';
import { adminSystemRoutes } from '../features/admin-system/routes.tsx';
import { adminWebhooksRoutes } from '../features/admin-webhooks/routes.tsx';
import { buildsRoutes } from '../features/builds/routes.tsx';
import { demoRoutes, templateRoutes } from '../features/demo/routes.tsx';
import { errorRoutes, notFoundRoute } from '../features/errors/routes.tsx';
import { adminIntegrationsRoutes, integrationsRoutes } from '../features/integrations/routes.tsx';
import { onboardingRoutes } from '../features/onboarding/routes.tsx';
import { packagesRoutes } from '../features/packages/routes.tsx';
import { profileRoutes } from '../features/profile/routes.tsx';
import { projectSettingsRoutes } from '../features/project-settings/routes.tsx';
import { adminDistributionRoutes, releaseBundlesRoutes } from '../features/release-bundles/routes.tsx';
import { repositoriesRoutes } from '../features/repositories/routes.tsx';
import { searchRoutes } from '../features/search/routes.tsx';
import { securityRoutes } from '../features/security/routes.tsx';
import { storageRoutes } from '../features/storage/routes.tsx';
import { storagePoliciesRoutes } from '../features/storage-policies/routes.tsx';
import { adminTeasersRoutes, teasersRoutes } from '../features/teasers/routes.tsx';
import { trashRoutes } from '../features/trash/routes.tsx';
import { RouteErrorBoundary } from '../shared/components/RouteErrorBoundary.tsx';
import { PageLoading, RequireSignIn } from '../shared/session/RequireSignIn.tsx';
import { SessionProvider } from '../shared/session/SessionProvider.tsx';
import { HomeRedirect, RequireAdminArea, RequireFeature, ShellGuard } from './guards.tsx';
import { ShellLayout } from './ShellLayout.tsx';

/** A screen group (spec 000 §1 micro-frontend): its routes behind its own error boundary. */
function group(microfrontend: string, children: RouteObject[]): RouteObject {
  return { handle: { microfrontend }, errorElement: <RouteErrorBoundary />, children };
}

/**
 * The main layout (spec 000 §2): the session, the shell and each screen group inside it, behind the guards. Only
 * composes: every feature owns its routes (features/<area>/routes.tsx). Loaded on the first navigation outside
 * the login area (see `discoverMainRoute` in routes.tsx), so the login route stays small.
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
        group('@granary/packages', packagesRoutes),
        group('@granary/teasers', teasersRoutes),
        group('@granary/demo', [
          { element: <RequireFeature flag="template" />, children: templateRoutes },
          { element: <RequireFeature flag="demo" />, children: demoRoutes },
        ]),
        {
          element: <RequireSignIn />,
          children: [
            group('@granary/profile', profileRoutes),
            group('@granary/repositories', repositoriesRoutes),
            group('@granary/trash', trashRoutes),
            group('@granary/search', searchRoutes),
            group('@granary/security', securityRoutes),
            group('@granary/release-bundles', releaseBundlesRoutes),
            group('@granary/builds', buildsRoutes),
            group('@granary/project-settings', projectSettingsRoutes),
            group('@granary/integrations', integrationsRoutes),
            group('@granary/onboarding', onboardingRoutes),
            {
              element: <RequireAdminArea />,
              children: [
                group('@granary/admin-management', adminManagementRoutes),
                group('@granary/admin-repositories', adminRepositoriesRoutes),
                group('@granary/admin-system', [...adminSystemRoutes, ...adminTeasersRoutes]),
                group('@granary/admin-webhooks', adminWebhooksRoutes),
                group('@granary/admin-proxies', adminProxiesRoutes),
                group('@granary/admin-monitoring', adminMonitoringRoutes),
                group('@granary/admin-support', adminSupportRoutes),
                group('@granary/admin-logs', adminLogsRoutes),
                group('@granary/admin-integrations', adminIntegrationsRoutes),
                group('@granary/admin-distribution', adminDistributionRoutes),
                group('@granary/admin-sso', adminSsoRoutes),
                group('@granary/storage-policies', storagePoliciesRoutes),
                group('@granary/storage', storageRoutes),
              ],
            },
          ],
        },
      ],
    },
    notFoundRoute,
  ],
};
