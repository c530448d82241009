import { lazy } from 'react';
import type { RouteObject } from 'react-router';
import { RouteErrorBoundary } from '../../shared/components/RouteErrorBoundary.tsx';

const NotFoundPage = lazy(() =>
  import('./pages/NotFoundPage.tsx').then((m) => ({ default: m.NotFoundPage })),
);

/** spec 000 §2: /404, and unknown paths go to 404 unless a route is registered for them. */
export const errorRoutes: RouteObject[] = [
  { path: '404', element: <NotFoundPage />, errorElement: <RouteErrorBoundary /> },
  { path: '*', element: <NotFoundPage />, errorElement: <RouteErrorBoundary /> },
];
