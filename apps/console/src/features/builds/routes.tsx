import type { RouteObject } from 'react-router';
import { lazyPage } from '../../shared/components/microfrontend.ts';
import { RouteErrorBoundary } from '../../shared/components/RouteErrorBoundary.tsx';

const BuildsPage = lazyPage(() => import('./pages/BuildsPage.tsx'), 'BuildsPage');

/** The builds path, /builds/{name}/{number}/… (spec 000 §4 old build links land here). Behind sign-in. */
export const buildsRoutes: RouteObject[] = [
  {
    path: 'builds/:buildName?/:buildNumber?/*',
    element: <BuildsPage />,
    errorElement: <RouteErrorBoundary />,
    handle: { title: 'Builds' },
  },
];
