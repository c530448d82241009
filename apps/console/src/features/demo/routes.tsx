import { Navigate, type RouteObject } from 'react-router';
import { RequireFeature } from '../../app/guards.tsx';
import { lazyPage } from '../../shared/components/microfrontend.ts';
import { RouteErrorBoundary } from '../../shared/components/RouteErrorBoundary.tsx';

const demo = () => import('./pages/DemoPage.tsx');
const DemoPage = lazyPage(demo, 'DemoPage');
const TemplatePage = lazyPage(demo, 'TemplatePage');
const GreetingPage = lazyPage(() => import('./pages/GreetingPage.tsx'), 'GreetingPage');
const MultiMfeContainerPage = lazyPage(
  () => import('./pages/MultiMfeContainerPage.tsx'),
  'MultiMfeContainerPage',
);

const page = (path: string, element: React.ReactNode, title: string): RouteObject => ({
  path,
  element,
  errorElement: <RouteErrorBoundary />,
  handle: { title },
});

/**
 * spec 000 §2 /template (behind the template feature) and /demo (behind the demo feature): /demo redirects
 * to tree.demo; children tree, typescript (redirects to its child greeting) and multi-mfe-mounting-container.
 */
export const demoRoutes: RouteObject[] = [
  {
    element: <RequireFeature flag="template" />,
    children: [page('template', <TemplatePage />, 'Template')],
  },
  {
    element: <RequireFeature flag="demo" />,
    children: [
      { path: 'demo', element: <Navigate to="/demo/tree" replace /> },
      page('demo/tree', <DemoPage />, 'Demo'),
      { path: 'demo/typescript', element: <Navigate to="/demo/typescript/greeting" replace /> },
      page('demo/typescript/greeting', <GreetingPage />, 'TypeScript demo'),
      page('demo/multi-mfe-mounting-container', <MultiMfeContainerPage />, 'Multiple screens'),
    ],
  },
];
