import type { RouteObject } from 'react-router';
import { aboutRoutes } from '../features/about/routes.tsx';
import { adminManagementRoutes } from '../features/admin-management/routes.tsx';
import { adminRepositoriesRoutes } from '../features/admin-repositories/routes.tsx';
import { errorRoutes } from '../features/errors/routes.tsx';
import { loginRoutes } from '../features/login/routes.tsx';
import { profileRoutes } from '../features/profile/routes.tsx';
import { repositoriesRoutes } from '../features/repositories/routes.tsx';
import { RouteErrorBoundary } from '../shared/components/RouteErrorBoundary.tsx';
import { RequireAdmin } from '../shared/session/RequireAdmin.tsx';
import { RequireSignIn } from '../shared/session/RequireSignIn.tsx';
import { UserMenuSlot } from '../shared/session/UserMenuSlot.tsx';
import { AppLayout } from './AppLayout.tsx';

/** The console's route table: the login area on its own, the layout with each feature's routes inside it. */
export const appRoutes: RouteObject[] = [
  ...loginRoutes,
  {
    path: '/',
    element: <AppLayout headerExtra={<UserMenuSlot />} />,
    errorElement: <RouteErrorBoundary />,
    children: [
      ...aboutRoutes,
      {
        element: <RequireSignIn />,
        children: [
          ...profileRoutes,
          ...repositoriesRoutes,
          { element: <RequireAdmin />, children: [...adminManagementRoutes, ...adminRepositoriesRoutes] },
        ],
      },
      ...errorRoutes,
    ],
  },
];
