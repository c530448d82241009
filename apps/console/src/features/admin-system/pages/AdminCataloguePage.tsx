import { Card, Col, Empty, Input, Row, Typography } from 'antd';
import { type ReactNode, useState } from 'react';
import { Link } from 'react-router';
import './AdminCataloguePage.css';
import { useSession } from '../../../shared/session/SessionProvider.tsx';
import { isItemVisible, type MenuItemRule, type ShellContext } from '../../../shared/session/shellContext.ts';

/** issue 22: what a disabled entry says first, about the product (what the user can do), not our process. */
export const NOT_AVAILABLE = 'Not available on this instance';

export interface CatalogueItem extends MenuItemRule {
  label: string;
  to: string;
  /** Why the item cannot be opened (shown beside it, after NOT_AVAILABLE), or null when it can. */
  disabledReason?: (ctx: ShellContext) => string | null;
}

/** spec 000 §2 admin area catalogue: the admin screens in groups. */
export const ADMIN_CATALOGUE: { group: string; items: CatalogueItem[] }[] = [
  {
    group: 'Repositories',
    items: [
      { label: 'Repositories', to: '/admin/repositories', licenseNeeded: true },
      { label: 'New Remote Repository', to: '/admin/repositories/remote/new', hiddenOnLightweight: true },
      { label: 'Cleanup Policies', to: '/admin/repositories/cleanup-policies' },
      { label: 'Storage', to: '/admin/storage' },
    ],
  },
  {
    group: 'Identity and access',
    items: [
      { label: 'Users', to: '/admin/management/users' },
      { label: 'Groups', to: '/admin/management/groups' },
      { label: 'Permissions', to: '/admin/management/permissions' },
      { label: 'Single sign-on', to: '/admin/configuration/sso' },
      {
        label: 'Projects',
        to: '/admin/projects/list',
        disabledReason: (ctx) =>
          ctx.licenseType === 'N/A' || ['OSS', 'CONAN', 'JCR'].includes(ctx.licenseType)
            ? 'Projects need a commercial licence'
            : null,
      },
    ],
  },
  {
    group: 'Configuration',
    items: [
      { label: 'General', to: '/admin/configuration/general' },
      { label: 'Webhooks', to: '/admin/configuration/webhooks' },
      { label: 'Integrations', to: '/admin/configuration/integrations' },
      { label: 'Proxies', to: '/admin/proxies/configuration' },
      { label: 'Environments', to: '/admin/configuration/environments', hiddenOnLightweight: true },
    ],
  },
  {
    group: 'Distribution',
    items: [
      { label: 'Signing Keys', to: '/admin/security/signing_keys', hiddenOnLightweight: true },
      { label: 'Distribution Targets', to: '/admin/distribution/targets', hiddenOnLightweight: true },
    ],
  },
  {
    group: 'Security & Compliance',
    items: [
      { label: 'Watches', to: '/security_policies/watches', hiddenOnLightweight: true },
      { label: 'Policies', to: '/security_policies/policies', hiddenOnLightweight: true },
      { label: 'Indexed repositories', to: '/security_policies/indexed-repos', hiddenOnLightweight: true },
      { label: 'Custom issues', to: '/security_policies/custom-issues', hiddenOnLightweight: true },
      { label: 'Advisory database', to: '/security_policies/advisories', hiddenOnLightweight: true },
    ],
  },
  {
    group: 'Licences',
    items: [{ label: 'Licences', to: '/admin/license_management/licenses' }],
  },
  {
    group: 'Monitoring',
    items: [
      { label: 'Topology', to: '/admin/mission_control/topology', hiddenOnLightweight: true },
      { label: 'Service status', to: '/admin/monitoring/service-status' },
      { label: 'Peer distribution', to: '/admin/monitoring/pdn', hiddenOnLightweight: true },
      { label: 'System logs', to: '/admin/monitoring/system_logs' },
      { label: 'Support zone', to: '/admin/support-zone', cloudOnly: false },
    ],
  },
];

export function highlight(text: string, term: string): ReactNode {
  const t = term.trim();
  if (!t) return text;
  const at = text.toLowerCase().indexOf(t.toLowerCase());
  if (at < 0) return text;
  return (
    <>
      {text.slice(0, at)}
      <mark>{text.slice(at, at + t.length)}</mark>
      {text.slice(at + t.length)}
    </>
  );
}

/** spec 000 §2 /admin/artifactory/list: grouped cards with search highlight; hidden items dropped, disabled ones unlinked with their reason beside them. */
export function AdminCataloguePage() {
  const session = useSession();
  const [term, setTerm] = useState('');
  const t = term.trim().toLowerCase();
  const groups = ADMIN_CATALOGUE.map((g) => ({
    group: g.group,
    items: g.items.filter(
      (item) =>
        isItemVisible(item, session.shell) &&
        (!t || item.label.toLowerCase().includes(t) || g.group.toLowerCase().includes(t)),
    ),
  })).filter((g) => g.items.length > 0);
  return (
    <>
      <Typography.Title level={1}>Administration</Typography.Title>
      <Input.Search
        aria-label="Search settings"
        placeholder="Search settings"
        allowClear
        value={term}
        onChange={(e) => setTerm(e.target.value)}
        style={{ maxWidth: 360, marginBottom: 24 }}
      />
      {groups.length === 0 && <Empty description="No settings match your search" />}
      <Row gutter={[16, 16]}>
        {groups.map((g) => (
          <Col key={g.group} xs={24} md={12} xl={8}>
            <Card title={<h2 className="card-heading">{highlight(g.group, term)}</h2>} size="small">
              <ul className="admin-catalogue-list">
                {g.items.map((item) => {
                  const reason = item.disabledReason?.(session.shell) ?? null;
                  return (
                    <li key={item.to}>
                      {reason ? (
                        // issue 22: the reason sits beside the entry (a tooltip above it covered the link above).
                        <span className="admin-catalogue-disabled">
                          <span aria-disabled="true">{highlight(item.label, term)}</span>
                          <span className="admin-catalogue-reason">
                            {NOT_AVAILABLE}: {reason}
                          </span>
                        </span>
                      ) : (
                        <Link to={item.to}>{highlight(item.label, term)}</Link>
                      )}
                    </li>
                  );
                })}
              </ul>
            </Card>
          </Col>
        ))}
      </Row>
    </>
  );
}
