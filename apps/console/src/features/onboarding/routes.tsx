import type { RouteObject } from 'react-router';
import { lazyPage } from '../../shared/components/microfrontend.ts';
import { page } from '../../shared/routing/page.tsx';

const QuickSetupPage = lazyPage(() => import('./pages/QuickSetupPage.tsx'), 'QuickSetupPage');
const ProjectsPage = lazyPage(() => import('./pages/ProjectsPage.tsx'), 'ProjectsPage');

/**
 * spec 000 §2 /quick-setup (the onboarding page) and /projects (used by onboarding). Mounted behind sign-in; quick
 * setup is for administrators (spec 000 §6), which the page and every server call check.
 */
export const onboardingRoutes: RouteObject[] = [
  page('quick-setup', <QuickSetupPage />, 'Quick Setup'),
  page('projects', <ProjectsPage />, 'Projects'),
];
