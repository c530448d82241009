import { lazy } from 'react';
import type { RouteObject } from 'react-router';
import { RouteErrorBoundary } from '../../shared/components/RouteErrorBoundary.tsx';

const AboutPage = lazy(() => import('./pages/AboutPage.tsx').then((m) => ({ default: m.AboutPage })));

/** The console's landing page: the server it talks to, its version and revision. */
export const aboutRoutes: RouteObject[] = [
  { index: true, element: <AboutPage />, errorElement: <RouteErrorBoundary /> },
];
