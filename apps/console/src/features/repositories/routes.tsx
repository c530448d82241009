import { Navigate, type RouteObject } from 'react-router';
import { lazyPage } from '../../shared/components/microfrontend.ts';
import { page } from '../../shared/routing/page.tsx';

const TreeBrowserPage = lazyPage(() => import('./pages/TreeBrowserPage.tsx'), 'TreeBrowserPage');

/**
 * spec 000 §2: the artifact tree at repos/tree/General (the lightweight instance's home), deep-linked as
 * /repos/tree/General/{repoKey}/{path}. Mounted behind the sign-in guard.
 */
export const repositoriesRoutes: RouteObject[] = [
  { path: 'repos', element: <Navigate to="/repos/tree/General" replace /> },
  { path: 'repos/tree', element: <Navigate to="/repos/tree/General" replace /> },
  page('repos/tree/General/*', <TreeBrowserPage />, 'Artifacts'),
];
