import type { RouteObject } from 'react-router';
import { lazyPage } from '../../shared/components/microfrontend.ts';
import { page } from '../../shared/routing/page.tsx';

const PoliciesPage = lazyPage(() => import('./pages/PoliciesPage.tsx'), 'PoliciesPage');
const PolicyFormPage = lazyPage(() => import('./pages/PolicyFormPage.tsx'), 'PolicyFormPage');
const ArchiveSearchPage = lazyPage(() => import('./pages/ArchiveSearchPage.tsx'), 'ArchiveSearchPage');

/**
 * Issue 21: cleanup policies under the admin area, and the Archive search results (spec 001 §2
 * `/artifactoryRetention/search`). Mounted behind the admin guard: the archive is for administrators (the
 * retention feature is checked for admins only, spec 001 §4/§6); the server checks on every call too.
 */
export const storagePoliciesRoutes: RouteObject[] = [
  page('admin/repositories/cleanup-policies', <PoliciesPage />, 'Cleanup Policies'),
  page('admin/repositories/cleanup-policies/new', <PolicyFormPage />, 'New Cleanup Policy'),
  page('admin/repositories/cleanup-policies/edit/:policyId', <PolicyFormPage />, 'Edit Cleanup Policy'),
  page('artifactoryRetention/search', <ArchiveSearchPage />, 'Archive'),
];
