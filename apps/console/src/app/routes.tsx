import type { PatchRoutesOnNavigationFunction, RouteObject } from 'react-router';
import { loginRoutes } from '../features/login/routes.tsx';
import { loadChunk } from '../shared/components/microfrontend.ts';

/**
 * The console's route table as first loaded: the login area only. The main layout (session, shell, every screen
 * group: mainRoutes.tsx) is added by `discoverMainRoute` on the first navigation outside the login area, so the
 * login route does not load it.
 */
export const appRoutes: RouteObject[] = [...loginRoutes];

/** The router's `patchRoutesOnNavigation`: adds the main layout once (a second patch with the same id is a no-op). */
export const discoverMainRoute: PatchRoutesOnNavigationFunction = async ({ patch }) => {
  const { mainRoute } = await loadChunk(() => import('./mainRoutes.tsx'));
  patch(null, [mainRoute]);
};
