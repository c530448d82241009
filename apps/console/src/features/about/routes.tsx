import type { RouteObject } from 'react-router';
import { lazyPage } from '../../shared/components/microfrontend.ts';
import { RouteErrorBoundary } from '../../shared/components/RouteErrorBoundary.tsx';

const AboutPage = lazyPage(() => import('./pages/AboutPage.tsx'), 'AboutPage');

/** spec 000 §2 /overview: the server this console talks to, its version and revision. */
export const aboutRoutes: RouteObject[] = [
  {
    path: 'overview',
    element: <AboutPage />,
    errorElement: <RouteErrorBoundary />,
    handle: { title: 'Overview' },
  },
];
