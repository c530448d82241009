import type { RouteObject } from 'react-router';
import { lazyPage } from '../../shared/components/microfrontend.ts';
import { page } from '../../shared/routing/page.tsx';

const BuildsPage = lazyPage(() => import('./pages/BuildsPage.tsx'), 'BuildsPage');
const BuildRunsPage = lazyPage(() => import('./pages/BuildRunsPage.tsx'), 'BuildRunsPage');
const BuildRunPage = lazyPage(() => import('./pages/BuildRunPage.tsx'), 'BuildRunPage');

/**
 * Issue 19 / spec 001 §2 toolbar type builds → /builds: the list, a build's runs, a run's details (with its tab).
 * Old hash-based build links land here (spec 000 §4, `jenkinsRedirect=true`). Behind sign-in.
 */
export const buildsRoutes: RouteObject[] = [
  page('builds', <BuildsPage />, 'Builds'),
  page('builds/:buildName', <BuildRunsPage />, 'Build'),
  page('builds/:buildName/:buildNumber', <BuildRunPage />, 'Build Run'),
  page('builds/:buildName/:buildNumber/:tab', <BuildRunPage />, 'Build Run'),
  // Artifactory's run links: /builds/{name}/{number}/{started}/{tab}.
  page('builds/:buildName/:buildNumber/:started/:tab', <BuildRunPage />, 'Build Run'),
];
