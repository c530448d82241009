import type { RouteObject } from 'react-router';
import { lazyPage } from '../../shared/components/microfrontend.ts';
import { page } from '../../shared/routing/page.tsx';

const ProjectSettingsPage = lazyPage(() => import('./pages/ProjectSettingsPage.tsx'), 'ProjectSettingsPage');

/** The project settings sidebar's screens (spec 000 §2): /project-settings/{key} and …/members. Behind sign-in. */
export const projectSettingsRoutes: RouteObject[] = [
  page('project-settings/:projectKey', <ProjectSettingsPage section="general" />, 'Project settings'),
  page('project-settings/:projectKey/members', <ProjectSettingsPage section="members" />, 'Project members'),
];
