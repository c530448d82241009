import { lazy } from 'react';
import type { RouteObject } from 'react-router';
import { RouteErrorBoundary } from '../../shared/components/RouteErrorBoundary.tsx';

const ArtifactSearchPage = lazy(() =>
  import('./pages/ArtifactSearchPage.tsx').then((m) => ({ default: m.ArtifactSearchPage })),
);

/** spec 001 §2 artifacts search results. Mounted behind the sign-in guard. */
export const searchRoutes: RouteObject[] = [
  {
    path: 'artifactSearchResults',
    element: <ArtifactSearchPage />,
    errorElement: <RouteErrorBoundary />,
    handle: { title: 'Artifact search' },
  },
];
