import { lazy } from 'react';
import { Navigate, type RouteObject } from 'react-router';
import { RouteErrorBoundary } from '../../shared/components/RouteErrorBoundary.tsx';

const TreeBrowserPage = lazy(() =>
  import('./pages/TreeBrowserPage.tsx').then((m) => ({ default: m.TreeBrowserPage })),
);

/**
 * spec 000 §2: the artifact tree at repos/tree/General (the lightweight instance's home), deep-linked as
 * /repos/tree/General/{repoKey}/{path}. Mounted behind the sign-in guard.
 */
export const repositoriesRoutes: RouteObject[] = [
  { path: 'repos', element: <Navigate to="/repos/tree/General" replace /> },
  { path: 'repos/tree', element: <Navigate to="/repos/tree/General" replace /> },
  {
    path: 'repos/tree/General/*',
    element: <TreeBrowserPage />,
    errorElement: <RouteErrorBoundary />,
    handle: { title: 'Artifacts' },
  },
];
