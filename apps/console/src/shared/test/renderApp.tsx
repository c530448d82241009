import { render } from '@testing-library/react';
import { createMemoryRouter, RouterProvider } from 'react-router';
import { AppProviders } from '../../app/AppProviders.tsx';
import { createQueryClient } from '../../app/queryClient.ts';
import { appRoutes, discoverMainRoute } from '../../app/routes.tsx';
// Loaded up front so the main layout's lazy discovery (routes.tsx) resolves from the module cache, not a cold
// transform inside the first test's timeout.
import '../../app/mainRoutes.tsx';

/** Renders the whole console (real routes, providers and query client) at a path below /ui/. */
export function renderApp(path = '/') {
  const router = createMemoryRouter(appRoutes, {
    initialEntries: [`/ui${path}`],
    basename: '/ui',
    patchRoutesOnNavigation: discoverMainRoute,
  });
  const queryClient = createQueryClient();
  const result = render(
    <AppProviders queryClient={queryClient}>
      <RouterProvider router={router} />
    </AppProviders>,
  );
  return { ...result, router, queryClient };
}
