import { PlusOutlined } from '@ant-design/icons';
import { useQuery } from '@tanstack/react-query';
import { Alert, Button, Empty, Flex, Input, Spin, Table, Tabs, Tag, Typography } from 'antd';
import { useState } from 'react';
import { Link, Navigate, useLocation, useNavigate, useParams, useSearchParams } from 'react-router';
import { ErrorAlert } from '../../../shared/components/ErrorAlert.tsx';
import { useSession } from '../../../shared/session/SessionProvider.tsx';
import { BundleDetails } from '../components/BundleDetails.tsx';
import { BundleVersions } from '../components/BundleVersions.tsx';
import { CreateBundleWizard } from '../components/CreateBundleWizard.tsx';
import { NoDistributionNotice } from '../components/NoDistributionNotice.tsx';
import { bundleNamesQueryOptions, receivedQueryOptions, targetsQueryOptions } from '../queries.ts';
import {
  DISTRIBUTION_TABS,
  defaultDistributionTab,
  isDistributionTab,
  OLD_BUNDLES_PATH,
  RELEASE_BUNDLES_PATH,
  releaseBundlesRedirect,
  type ServiceVersions,
  statusColour,
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

/** Source tab: the bundles made on this instance (search by name), with the create wizard. */
function SourceBundles({ base, admin }: { base: string; admin: boolean }) {
  const navigate = useNavigate();
  const [params, setParams] = useSearchParams();
  const search = params.get('q') ?? '';
  const [text, setText] = useState(search);
  const [creating, setCreating] = useState(false);
  const names = useQuery(bundleNamesQueryOptions());
  const targets = useQuery(targetsQueryOptions());
  const rows = (names.data?.release_bundles ?? []).filter((b) =>
    b.release_bundle_name.toLowerCase().includes(search.toLowerCase()),
  );
  return (
    <Flex vertical gap="middle">
      <NoDistributionNotice targets={targets.isError ? undefined : targets.data} admin={admin} />
      <Flex justify="space-between" wrap gap="middle">
        <Input.Search
          aria-label="Search release bundles"
          placeholder="Search release bundles by name"
          allowClear
          value={text}
          onChange={(e) => setText(e.target.value)}
          onSearch={(v) => {
            const next = new URLSearchParams(params);
            if (v.trim()) next.set('q', v.trim());
            else next.delete('q');
            setParams(next);
          }}
          style={{ maxWidth: 420 }}
        />
        <Button type="primary" icon={<PlusOutlined aria-hidden />} onClick={() => setCreating(true)}>
          Create Release Bundle
        </Button>
      </Flex>
      {names.error && <ErrorAlert error={names.error} />}
      <Table
        rowKey="release_bundle_name"
        size="middle"
        loading={names.isPending}
        dataSource={rows}
        pagination={{ pageSize: 25, hideOnSinglePage: true }}
        locale={{
          emptyText: (
            <Empty
              description={search ? `No release bundle matches "${search}"` : 'No release bundles yet'}
            />
          ),
        }}
        columns={[
          {
            title: 'Name',
            key: 'name',
            render: (_, b) => (
              <Link to={`${base}/source/${encodeURIComponent(b.release_bundle_name)}`}>
                {b.release_bundle_name}
              </Link>
            ),
          },
          {
            title: 'Latest version',
            key: 'latest',
            render: (_, b) => (
              <Link
                to={`${base}/source/${encodeURIComponent(b.release_bundle_name)}/${encodeURIComponent(b.release_bundle_version_latest)}`}
              >
                {b.release_bundle_version_latest}
              </Link>
            ),
          },
          { title: 'Versions', dataIndex: 'versions', key: 'versions', align: 'right' },
          {
            title: 'Last created',
            key: 'created',
            render: (_, b) => new Date(b.last_version_created_millis).toLocaleString(),
          },
        ]}
      />
      {creating && (
        <CreateBundleWizard
          onClose={() => setCreating(false)}
          onCreated={(name, version) => {
            setCreating(false);
            navigate(`${base}/source/${encodeURIComponent(name)}/${encodeURIComponent(version)}`);
          }}
        />
      )}
    </Flex>
  );
}

/** Target tab: the bundles other instances distributed to this one, with their transfer status. */
function ReceivedBundles({ base }: { base: string }) {
  const received = useQuery(receivedQueryOptions());
  return (
    <>
      {received.error && <ErrorAlert error={received.error} />}
      <Table
        rowKey="id"
        size="middle"
        loading={received.isPending}
        dataSource={received.data ?? []}
        locale={{ emptyText: <Empty description="No release bundle was distributed to this instance" /> }}
        columns={[
          {
            title: 'Name',
            key: 'name',
            render: (_, r) =>
              r.status === 'COMPLETED' ? (
                <Link
                  to={`${base}/target/${encodeURIComponent(r.release_bundle_name)}/${encodeURIComponent(r.release_bundle_version)}`}
                >
                  {r.release_bundle_name}
                </Link>
              ) : (
                r.release_bundle_name
              ),
          },
          { title: 'Version', dataIndex: 'release_bundle_version', key: 'version' },
          {
            title: 'Status',
            key: 'status',
            render: (_, r) => (
              <>
                <Tag color={statusColour(r.status)}>{r.status}</Tag>
                {r.reason && <Typography.Text type="danger">{r.reason}</Typography.Text>}
              </>
            ),
          },
          { title: 'Files', key: 'files', render: (_, r) => `${r.files_done} / ${r.files_total}` },
          { title: 'Updated', key: 'updated', render: (_, r) => new Date(r.updated).toLocaleString() },
        ]}
      />
    </>
  );
}

/**
 * spec 000 §2 release bundles and distribution routes: /bundles (the old bundles path, the distribution
 * screen) and /release-bundles, each with a child /{activeTab}. A bundles path moves to the release bundles
 * path once the service versions allow it; a main route without a valid tab adds the default one. Under a tab:
 * the list, `/{name}` a bundle's versions, `/{name}/{version}` a version's details.
 */
export function BundlesPage({ area }: { area: BundlesArea }) {
  const session = useSession();
  const location = useLocation();
  const navigate = useNavigate();
  const { activeTab, '*': rest = '' } = useParams();
  const versions = useServiceVersions();
  const moved = area === 'distribution' ? releaseBundlesRedirect(location.pathname, versions) : null;
  if (moved) return <Navigate to={`${moved}${location.search}${location.hash}`} replace />;
  const { title, base } = AREAS[area];
  const hasDistribution = session.microservices.distribution === true;
  if (!isDistributionTab(activeTab)) {
    // The landing tab depends on the licence and the services: decided once start-up has them.
    if (session.loading) return <Spin />;
    const tab = defaultDistributionTab({ hasDistribution, licenseType: session.licenseType });
    return <Navigate to={`${base}/${tab}${location.search}`} replace />;
  }
  const admin = session.user?.admin === true;
  const [name, version] = rest.split('/').filter(Boolean).map(decodeURIComponent);
  const content = version ? (
    <BundleDetails
      name={name ?? ''}
      version={version}
      tabBase={`${base}/${activeTab}`}
      admin={admin}
      received={activeTab === 'target'}
    />
  ) : name ? (
    <BundleVersions name={name} tabBase={`${base}/${activeTab}`} />
  ) : activeTab === 'source' ? (
    <SourceBundles base={base} admin={admin} />
  ) : (
    <ReceivedBundles base={base} />
  );
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
      {content}
    </Flex>
  );
}
