import type { RouteObject } from 'react-router';
import { lazyPage } from '../../shared/components/microfrontend.ts';
import { page } from '../../shared/routing/page.tsx';

const BuildsPage = lazyPage(() => import('./pages/BuildsPage.tsx'), 'BuildsPage');

/** The builds path, /builds/{name}/{number}/… (spec 000 §4 old build links land here). Behind sign-in. */
export const buildsRoutes: RouteObject[] = [
  page('builds/:buildName?/:buildNumber?/*', <BuildsPage />, 'Builds'),
];
