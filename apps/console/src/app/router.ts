import { BASE_PATH } from '@granary/contracts';
import { createBrowserRouter } from 'react-router';
import { appRoutes, discoverMainRoute } from './routes.tsx';

/** spec 000 §1: history mode under the base path /ui/ (the router's basename has no trailing slash). */
export const ROUTER_BASENAME = BASE_PATH.replace(/\/+$/, '');

export function createAppRouter() {
  return createBrowserRouter(appRoutes, {
    basename: ROUTER_BASENAME,
    patchRoutesOnNavigation: discoverMainRoute,
  });
}
