import type { RouteObject } from 'react-router';
import { lazyPage } from '../../shared/components/microfrontend.ts';
import { page } from '../../shared/routing/page.tsx';

const RepositoriesPage = lazyPage(() => import('./pages/RepositoriesPage.tsx'), 'RepositoriesPage');
const NewRepositoryPage = lazyPage(() => import('./pages/NewRepositoryPage.tsx'), 'NewRepositoryPage');
const RepositoryFormPage = lazyPage(() => import('./pages/RepositoryFormPage.tsx'), 'RepositoryFormPage');

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
