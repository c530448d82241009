import type { RouteObject } from 'react-router';
import { lazyPage } from '../../shared/components/microfrontend.ts';
import { RouteErrorBoundary } from '../../shared/components/RouteErrorBoundary.tsx';

const ProjectSettingsPage = lazyPage(() => import('./pages/ProjectSettingsPage.tsx'), 'ProjectSettingsPage');

/** The project settings sidebar's screens (spec 000 §2): /project-settings/{key} and …/members. Behind sign-in. */
export const projectSettingsRoutes: RouteObject[] = [
  {
    path: 'project-settings/:projectKey',
    element: <ProjectSettingsPage section="general" />,
    errorElement: <RouteErrorBoundary />,
    handle: { title: 'Project settings' },
  },
  {
    path: 'project-settings/:projectKey/members',
    element: <ProjectSettingsPage section="members" />,
    errorElement: <RouteErrorBoundary />,
    handle: { title: 'Project members' },
  },
];
