import type { RouteObject } from 'react-router';
import { lazyPage } from '../../shared/components/microfrontend.ts';
import { page } from '../../shared/routing/page.tsx';

const NotFoundPage = lazyPage(() => import('./pages/NotFoundPage.tsx'), 'NotFoundPage');
const NotAcceptablePage = lazyPage(() => import('./pages/ErrorPages.tsx'), 'NotAcceptablePage');
const ServerErrorPage = lazyPage(() => import('./pages/ErrorPages.tsx'), 'ServerErrorPage');
const AuthorizationPage = lazyPage(() => import('./pages/ErrorPages.tsx'), 'AuthorizationPage');

/** spec 000 §2: /404, /406/{requestId}, /500 (to / when entered directly), /authorization. */
export const errorRoutes: RouteObject[] = [
  page('404', <NotFoundPage />, 'Page not found'),
  page('406/:requestId', <NotAcceptablePage />, 'Request not acceptable'),
  page('500', <ServerErrorPage />, 'Something went wrong'),
  page('authorization', <AuthorizationPage />, 'Not authorized'),
];

/** Unknown paths go to 404 unless a route is registered for them. */
export const notFoundRoute: RouteObject = page('*', <NotFoundPage />, 'Page not found');
