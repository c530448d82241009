import type { RouteObject } from 'react-router';
import { lazyPage } from '../../shared/components/microfrontend.ts';
import { page } from '../../shared/routing/page.tsx';

const AboutPage = lazyPage(() => import('./pages/AboutPage.tsx'), 'AboutPage');

/** spec 000 §2 /overview: the server this console talks to, its version and revision. */
export const aboutRoutes: RouteObject[] = [page('overview', <AboutPage />, 'Overview')];
