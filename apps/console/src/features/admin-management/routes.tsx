import { lazy } from 'react';
import { Navigate, type RouteObject } from 'react-router';
import { RouteErrorBoundary } from '../../shared/components/RouteErrorBoundary.tsx';

const UsersPage = lazy(() => import('./pages/UsersPage.tsx').then((m) => ({ default: m.UsersPage })));
const UserFormPage = lazy(() =>
  import('./pages/UserFormPage.tsx').then((m) => ({ default: m.UserFormPage })),
);
const GroupsPage = lazy(() => import('./pages/GroupsPage.tsx').then((m) => ({ default: m.GroupsPage })));
const GroupFormPage = lazy(() =>
  import('./pages/GroupFormPage.tsx').then((m) => ({ default: m.GroupFormPage })),
);
const PermissionsPage = lazy(() =>
  import('./pages/PermissionsPage.tsx').then((m) => ({ default: m.PermissionsPage })),
);
const PermissionFormPage = lazy(() =>
  import('./pages/PermissionFormPage.tsx').then((m) => ({ default: m.PermissionFormPage })),
);
const ProjectsPage = lazy(() =>
  import('./pages/ProjectsPage.tsx').then((m) => ({ default: m.ProjectsPage })),
);

const page = (path: string, element: React.ReactNode): RouteObject => ({
  path,
  element,
  errorElement: <RouteErrorBoundary />,
});

/**
 * spec 000 §2 admin area: /admin redirects to /admin/management/users; admin.management with users, groups
 * (list, edit, new) and permissions (list, create, edit); the reserved projects path /admin/projects/list.
 * Mounted behind the sign-in and admin guards.
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
