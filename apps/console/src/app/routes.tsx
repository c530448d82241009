import {
  Navigate,
  Outlet,
  type PatchRoutesOnNavigationFunction,
  type RouteObject,
  useLocation,
} from 'react-router';
import { loginRoutes } from '../features/login/routes.tsx';
import { loadChunk } from '../shared/components/microfrontend.ts';
import { RouteErrorBoundary } from '../shared/components/RouteErrorBoundary.tsx';
import { PageLoading } from '../shared/session/RequireSignIn.tsx';

/**
 * The console's route table as first loaded: the login area only, under a root route that stands in for the
 * main layout until it is loaded. The main layout (session, shell, every screen group: mainRoutes.tsx) is added
 * by `discoverMainRoute` on the first navigation outside the login area, so the login route does not load it.
 *
 * Issue 22: on a full page load of a main-layout URL (`/packages`), React Router first matches the table above;
 * with nothing matching it warned "No routes matched location …" and, rendering before the main layout arrived,
 * "No `HydrateFallback` element provided". The root route matches every URL partially, so the router has a
 * match to render while it discovers the main layout, and that render is the root's `hydrateFallbackElement`
 * (a loading state). `/` itself matches the root's index, which goes on to `/home`, a main-layout route.
 */
export const appRoutes: RouteObject[] = [
  {
    id: 'root',
    path: '/',
    // An element of its own: while the main layout loads, the root is the matched leaf.
    element: <Outlet />,
    hydrateFallbackElement: <PageLoading label="Starting the console…" />,
    errorElement: <RouteErrorBoundary />,
    children: [...loginRoutes, { index: true, element: <ToHome /> }],
  },
];

/**
 * `/` goes on to `/home` with its query and hash: an old hash-based build link (`/ui/#/builds/…`, spec 000 §4) is
 * read by the main layout's guard there.
 */
function ToHome() {
  const { search, hash } = useLocation();
  return <Navigate to={{ pathname: '/home', search, hash }} replace />;
}

/** The router's `patchRoutesOnNavigation`: adds the main layout once (a second patch with the same id is a no-op). */
export const discoverMainRoute: PatchRoutesOnNavigationFunction = async ({ patch }) => {
  const { mainRoute } = await loadChunk(() => import('./mainRoutes.tsx'));
  patch(null, [mainRoute]);
};
