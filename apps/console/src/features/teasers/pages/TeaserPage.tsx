import { Card, Flex, List, Typography } from 'antd';
import { Link, Navigate, useLocation } from 'react-router';
import { useSession } from '../../../shared/session/SessionProvider.tsx';

export type TeaserKind = 'securityAndCompliance' | 'pdn' | 'pipelines' | 'topology' | 'releaseBundles';

const TEASERS: Record<TeaserKind, { title: string; summary: string; points: string[]; needs: string }> = {
  securityAndCompliance: {
    title: 'Security & Compliance',
    summary:
      'Scan every stored package for known vulnerabilities and licence issues, and block what breaks policy.',
    points: [
      'Continuous scanning of packages and container images as they are deployed or cached',
      'Policies and watches that warn, block downloads or fail builds',
      'Licence compliance checks and a software bill of materials per version',
    ],
    needs: 'Needs the scanning service and a commercial, trial, edge or enterprise licence.',
  },
  pdn: {
    title: 'Peer Distribution',
    summary: 'Spread large downloads across peers close to the clients, so a fleet pulls an image once.',
    points: [
      'Peers in each site share the blobs they already hold',
      'The repository serves each file once per site instead of once per client',
      'Download statistics per peer and per file',
    ],
    needs: 'Needs the distribution service.',
  },
  pipelines: {
    title: 'Pipelines',
    summary: 'Build, test and promote from the repository that stores the results, with every step recorded.',
    points: [
      'Declarative pipelines triggered by commits, tags or new packages',
      'Build information linked to the artifacts each build produced',
      'Promotion between repositories as a pipeline step',
    ],
    needs: 'Needs the pipelines service.',
  },
  topology: {
    title: 'Topology',
    summary: 'See every node of this installation and the services on it, with their health.',
    points: [
      'Nodes with their version, uptime and last heartbeat',
      'Which services run where, and which are offline',
      'High-availability status at a glance',
    ],
    needs: 'Needs the mission-control service.',
  },
  releaseBundles: {
    title: 'Release Bundles',
    summary: 'Sign an immutable set of artifacts as a release and distribute it to edge nodes.',
    points: [
      'A release bundle names exact versions and is signed when created',
      'Distribution to edge nodes with verification on arrival',
      'Promotion of a bundle through environments',
    ],
    needs: 'Needs the distribution service and an edge or enterprise-plus licence.',
  },
};

/** spec 000 §2 teasers: a real page explaining a capability this instance does not run yet. */
export function TeaserPage({ kind }: { kind: TeaserKind }) {
  const session = useSession();
  const location = useLocation();
  // spec 000 §2: the security teaser redirects to security_policies when the scanning service is present and
  // the licence qualifies.
  if (
    kind === 'securityAndCompliance' &&
    session.microservices.xray &&
    session.entitlements?.entitlements.scanning
  ) {
    return <Navigate to="/security_policies" replace />;
  }
  const teaser = TEASERS[kind];
  return (
    <Flex vertical gap="large">
      <div>
        <Typography.Title level={1}>{teaser.title}</Typography.Title>
        <Typography.Paragraph>{teaser.summary}</Typography.Paragraph>
      </div>
      <Card title={<h2 className="card-heading">What it does</h2>}>
        <List dataSource={teaser.points} renderItem={(point) => <List.Item>{point}</List.Item>} />
      </Card>
      <Typography.Paragraph type="secondary">
        {teaser.needs} This instance does not run it{location.pathname.startsWith('/admin') ? '' : ' yet'}.{' '}
        {session.user?.admin && <Link to="/admin/license_management/licenses">See the licence</Link>}
      </Typography.Paragraph>
    </Flex>
  );
}

export const SecurityTeaserPage = () => <TeaserPage kind="securityAndCompliance" />;
export const PdnTeaserPage = () => <TeaserPage kind="pdn" />;
export const PipelinesTeaserPage = () => <TeaserPage kind="pipelines" />;
export const TopologyTeaserPage = () => <TeaserPage kind="topology" />;
export const ReleaseBundlesTeaserPage = () => <TeaserPage kind="releaseBundles" />;
