import type { RouteObject } from 'react-router';
import { lazyPage } from '../../shared/components/microfrontend.ts';
import { page } from '../../shared/routing/page.tsx';

const TrashCanPage = lazyPage(() => import('./pages/TrashCanPage.tsx'), 'TrashCanPage');

/**
 * issue 21: the Trash Can beside the artifact tree (spec 001 §3 actions Search Trash Can, Restore, Delete
 * Permanently, Empty Trash Can). Mounted behind the sign-in guard; each action is checked on the server.
 */
export const trashRoutes: RouteObject[] = [page('repos/trash', <TrashCanPage />, 'Trash Can')];
