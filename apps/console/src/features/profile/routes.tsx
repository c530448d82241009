import { lazy } from 'react';
import type { RouteObject } from 'react-router';
import { RouteErrorBoundary } from '../../shared/components/RouteErrorBoundary.tsx';

const ProfilePage = lazy(() => import('./pages/ProfilePage.tsx').then((m) => ({ default: m.ProfilePage })));

/** spec 000 §2 user menu "Edit Profile": /admin/artifactory/user_profile, for every signed-in user. */
export const profileRoutes: RouteObject[] = [
  {
    path: 'admin/artifactory/user_profile',
    element: <ProfilePage />,
    errorElement: <RouteErrorBoundary />,
    // The shell titles the page (spec 000 §2: "{route title} - {server name}").
    handle: { title: 'Edit Profile' },
  },
];
