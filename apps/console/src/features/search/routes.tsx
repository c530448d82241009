import type { RouteObject } from 'react-router';
import { lazyPage } from '../../shared/components/microfrontend.ts';
import { page } from '../../shared/routing/page.tsx';

const ArtifactSearchPage = lazyPage(() => import('./pages/ArtifactSearchPage.tsx'), 'ArtifactSearchPage');

/** spec 001 §2 artifacts search results. Mounted behind the sign-in guard. */
export const searchRoutes: RouteObject[] = [
  page('artifactSearchResults', <ArtifactSearchPage />, 'Artifact search'),
];
