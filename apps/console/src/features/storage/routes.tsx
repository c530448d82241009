import type { RouteObject } from 'react-router';
import { lazyPage } from '../../shared/components/microfrontend.ts';
import { page } from '../../shared/routing/page.tsx';

const StoragePage = lazyPage(() => import('./pages/StoragePage.tsx'), 'StoragePage');

/** issue 21: the storage page in the admin area (behind the sign-in and admin guards; the server checks admin too). */
export const storageRoutes: RouteObject[] = [page('admin/storage', <StoragePage />, 'Storage')];
