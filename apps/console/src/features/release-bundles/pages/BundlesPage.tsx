import { Alert, Flex, Tabs, Typography } from 'antd';
import { Link, Navigate, useLocation, useNavigate, useParams } from 'react-router';
import { useSession } from '../../../shared/session/SessionProvider.tsx';
import {
  DISTRIBUTION_TABS,
  defaultDistributionTab,
  isDistributionTab,
  OLD_BUNDLES_PATH,
  RELEASE_BUNDLES_PATH,
  releaseBundlesRedirect,
  type ServiceVersions,
} from '../rules.ts';

export type BundlesArea = 'distribution' | 'releaseBundles';

const AREAS: Record<BundlesArea, { title: string; base: string }> = {
  distribution: { title: 'Distribution', base: OLD_BUNDLES_PATH },
  releaseBundles: { title: 'Release Bundles', base: RELEASE_BUNDLES_PATH },
};

const TAB_LABELS = { source: 'Source', target: 'Target' } as const;

/** The session's service versions: `system/version` for the repository service; distribution when it runs. */
function useServiceVersions(): ServiceVersions {
  const session = useSession();
  return {
    repositoryService: session.version?.version ?? null,
    // Granary reports no distribution version: a running distribution service counts as not yet 2.16.0.
    distribution: session.microservices.distribution ? { version: null } : null,
  };
}

/**
 * spec 000 §2 release bundles and distribution routes: /bundles (the old bundles path, the distribution
 * screen) and /release-bundles, each with a child /{activeTab}. A bundles path moves to the release bundles
 * path once the service versions allow it; a main route without a valid tab adds the default one.
 */
export function BundlesPage({ area }: { area: BundlesArea }) {
  const session = useSession();
  const location = useLocation();
  const navigate = useNavigate();
  const { activeTab } = useParams();
  const versions = useServiceVersions();
  const moved = area === 'distribution' ? releaseBundlesRedirect(location.pathname, versions) : null;
  if (moved) return <Navigate to={`${moved}${location.search}${location.hash}`} replace />;
  const { title, base } = AREAS[area];
  const hasDistribution = session.microservices.distribution === true;
  if (!isDistributionTab(activeTab)) {
    const tab = defaultDistributionTab({ hasDistribution, licenseType: session.licenseType });
    return <Navigate to={`${base}/${tab}${location.search}`} replace />;
  }
  const admin = session.user?.admin === true;
  return (
    <Flex vertical gap="middle">
      <Typography.Title level={1}>{title}</Typography.Title>
      <Tabs
        activeKey={activeTab}
        onChange={(key) => navigate(`${base}/${key}`)}
        items={DISTRIBUTION_TABS.map((tab) => ({ key: tab, label: TAB_LABELS[tab] }))}
      />
      {!hasDistribution && (
        <Alert
          type="info"
          showIcon
          title="The distribution service does not run on this instance"
          description={
            <>
              Release bundles are signed and distributed by the distribution service.{' '}
              <Link to="/release-bundles-teaser">What release bundles do</Link>
            </>
          }
        />
      )}
      <Alert
        type="warning"
        showIcon
        title="No distribution repositories are configured."
        description={
          admin ? (
            <Link to="/admin/repositories/local/new">Create a distribution repository</Link>
          ) : (
            'Ask an administrator to create a distribution repository.'
          )
        }
      />
    </Flex>
  );
}
