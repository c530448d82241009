import { lazy } from 'react';
import type { RouteObject } from 'react-router';
import { RouteErrorBoundary } from '../../shared/components/RouteErrorBoundary.tsx';

const RepositoriesPage = lazy(() =>
  import('./pages/RepositoriesPage.tsx').then((m) => ({ default: m.RepositoriesPage })),
);
const NewRepositoryPage = lazy(() =>
  import('./pages/NewRepositoryPage.tsx').then((m) => ({ default: m.NewRepositoryPage })),
);
const RepositoryFormPage = lazy(() =>
  import('./pages/RepositoryFormPage.tsx').then((m) => ({ default: m.RepositoryFormPage })),
);

const page = (path: string, element: React.ReactNode): RouteObject => ({
  path,
  element,
  errorElement: <RouteErrorBoundary />,
});

/**
 * spec 000 §2 admin.repositories (list, new, edit) and the user menu's targets
 * /admin/repositories/{local,remote,virtual}/new. Mounted behind the sign-in and admin guards.
 */
export const adminRepositoriesRoutes: RouteObject[] = [
  page('admin/repositories', <RepositoriesPage />),
  page('admin/repositories/new', <NewRepositoryPage />),
  page('admin/repositories/:rclass/new', <RepositoryFormPage />),
  page('admin/repositories/:rclass/:repoKey/edit', <RepositoryFormPage />),
];
