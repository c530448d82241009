import type { RouteObject } from 'react-router';
import { lazyPage } from '../../shared/components/microfrontend.ts';
import { page } from '../../shared/routing/page.tsx';

const ProfilePage = lazyPage(() => import('./pages/ProfilePage.tsx'), 'ProfilePage');

/** spec 000 §2 user menu "Edit Profile": /admin/artifactory/user_profile, for every signed-in user. */
export const profileRoutes: RouteObject[] = [
  // The shell titles the page (spec 000 §2: "{route title} - {server name}").
  page('admin/artifactory/user_profile', <ProfilePage />, 'Edit Profile'),
];
