import { Navigate, type RouteObject } from 'react-router';
import { lazyPage } from '../../shared/components/microfrontend.ts';
import { page } from '../../shared/routing/page.tsx';

const UsersPage = lazyPage(() => import('./pages/UsersPage.tsx'), 'UsersPage');
const UserFormPage = lazyPage(() => import('./pages/UserFormPage.tsx'), 'UserFormPage');
const GroupsPage = lazyPage(() => import('./pages/GroupsPage.tsx'), 'GroupsPage');
const GroupFormPage = lazyPage(() => import('./pages/GroupFormPage.tsx'), 'GroupFormPage');
const PermissionsPage = lazyPage(() => import('./pages/PermissionsPage.tsx'), 'PermissionsPage');
const PermissionFormPage = lazyPage(() => import('./pages/PermissionFormPage.tsx'), 'PermissionFormPage');
const ProjectsPage = lazyPage(() => import('./pages/ProjectsPage.tsx'), 'ProjectsPage');

/**
 * spec 000 §2 admin area: /admin redirects to /admin/management/users; admin.management with users, groups
 * (list, edit, new) and permissions (list, create, edit); the reserved projects path /admin/projects/list.
 * Mounted behind the sign-in and admin guards. The pages title themselves (AdminPage).
 */
export const adminManagementRoutes: RouteObject[] = [
  { path: 'admin', element: <Navigate to="/admin/management/users" replace /> },
  { path: 'admin/management', element: <Navigate to="/admin/management/users" replace /> },
  page('admin/management/users', <UsersPage />),
  page('admin/management/users/new', <UserFormPage />),
  page('admin/management/users/:userName/edit', <UserFormPage />),
  page('admin/management/groups', <GroupsPage />),
  page('admin/management/groups/new', <GroupFormPage />),
  page('admin/management/groups/:groupName/edit', <GroupFormPage />),
  page('admin/management/permissions', <PermissionsPage />),
  page('admin/management/permissions/create', <PermissionFormPage />),
  page('admin/management/permissions/:permissionName/edit', <PermissionFormPage />),
  page('admin/projects/list', <ProjectsPage />),
  { path: 'admin/projects', element: <Navigate to="/admin/projects/list" replace /> },
];
