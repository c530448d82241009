import type { RouteObject } from 'react-router';
import { lazyPage } from '../../shared/components/microfrontend.ts';
import { page } from '../../shared/routing/page.tsx';

const teasers = () => import('./pages/TeaserPage.tsx');
const SecurityTeaserPage = lazyPage(teasers, 'SecurityTeaserPage');
const PdnTeaserPage = lazyPage(teasers, 'PdnTeaserPage');
const PipelinesTeaserPage = lazyPage(teasers, 'PipelinesTeaserPage');
const TopologyTeaserPage = lazyPage(teasers, 'TopologyTeaserPage');
const ReleaseBundlesTeaserPage = lazyPage(teasers, 'ReleaseBundlesTeaserPage');

/** spec 000 §2 teasers: the application sidebar's capabilities this instance does not run yet. Behind the shell guard. */
export const teasersRoutes: RouteObject[] = [
  page('security-and-compliance-teaser', <SecurityTeaserPage />, 'Security & Compliance'),
  page('pdn-teaser', <PdnTeaserPage />, 'Peer Distribution'),
  page('pipelines-teaser', <PipelinesTeaserPage />, 'Pipelines'),
  page('topology-teaser', <TopologyTeaserPage />, 'Topology'),
  page('release-bundles-teaser', <ReleaseBundlesTeaserPage />, 'Release Bundles'),
];

/** The topology teaser inside the admin area (/admin/topology-teaser). Mounted behind the sign-in and admin guards. */
export const adminTeasersRoutes: RouteObject[] = [
  page('admin/topology-teaser', <TopologyTeaserPage />, 'Topology'),
];
