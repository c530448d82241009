import type { RouteObject } from 'react-router';
import { aboutRoutes } from '../features/about/routes.tsx';
import { errorRoutes } from '../features/errors/routes.tsx';
import { RouteErrorBoundary } from '../shared/components/RouteErrorBoundary.tsx';
import { AppLayout } from './AppLayout.tsx';

/** The console's route table: the layout, and each feature's own routes inside it. */
export const appRoutes: RouteObject[] = [
  {
    path: '/',
    element: <AppLayout />,
    errorElement: <RouteErrorBoundary />,
    children: [...aboutRoutes, ...errorRoutes],
  },
];
