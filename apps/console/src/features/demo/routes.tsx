import { Navigate, type RouteObject } from 'react-router';
import { lazyPage } from '../../shared/components/microfrontend.ts';
import { page } from '../../shared/routing/page.tsx';

const demo = () => import('./pages/DemoPage.tsx');
const DemoPage = lazyPage(demo, 'DemoPage');
const TemplatePage = lazyPage(demo, 'TemplatePage');
const GreetingPage = lazyPage(() => import('./pages/GreetingPage.tsx'), 'GreetingPage');
const MultiMfeContainerPage = lazyPage(
  () => import('./pages/MultiMfeContainerPage.tsx'),
  'MultiMfeContainerPage',
);

/** spec 000 §2 /template. The app mounts it behind the template feature flag (RequireFeature). */
export const templateRoutes: RouteObject[] = [page('template', <TemplatePage />, 'Template')];

/**
 * spec 000 §2 /demo: redirects to tree.demo; children tree, typescript (redirects to its child greeting) and
 * multi-mfe-mounting-container. The app mounts it behind the demo feature flag (RequireFeature).
 */
export const demoRoutes: RouteObject[] = [
  { path: 'demo', element: <Navigate to="/demo/tree" replace /> },
  page('demo/tree', <DemoPage />, 'Demo'),
  { path: 'demo/typescript', element: <Navigate to="/demo/typescript/greeting" replace /> },
  page('demo/typescript/greeting', <GreetingPage />, 'TypeScript demo'),
  page('demo/multi-mfe-mounting-container', <MultiMfeContainerPage />, 'Multiple screens'),
];
