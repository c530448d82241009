import { Flex, Tabs, Typography } from 'antd';
import type { ReactNode } from 'react';
import { Navigate, useNavigate, useParams } from 'react-router';
import { useSession } from '../../../shared/session/SessionProvider.tsx';
import { pageTitle } from '../../../shared/session/shellContext.ts';
import '../../../shared/styles/accessibleForms.css';
import { AdvisoriesTab } from '../components/AdvisoriesTab.tsx';
import { CustomIssuesTab } from '../components/CustomIssuesTab.tsx';
import { IgnoreRulesTab } from '../components/IgnoreRulesTab.tsx';
import { IndexedReposTab } from '../components/IndexedReposTab.tsx';
import { LicensesTab } from '../components/LicensesTab.tsx';
import { PoliciesTab } from '../components/PoliciesTab.tsx';
import { SecurityIssuesTab } from '../components/SecurityIssuesTab.tsx';
import { SourceReposTab } from '../components/SourceReposTab.tsx';
import { ViolationsTab } from '../components/ViolationsTab.tsx';
import { WatchesTab } from '../components/WatchesTab.tsx';
import { SECURITY_TABS, type SecurityTab, securityTabPath } from '../securityRules.ts';
import '../security.css';

function tabContent(tab: SecurityTab, admin: boolean): ReactNode {
  switch (tab) {
    case 'violations':
      return <ViolationsTab admin={admin} />;
    case 'issues':
      return <SecurityIssuesTab admin={admin} />;
    case 'licenses':
      return <LicensesTab admin={admin} />;
    case 'watches':
      return <WatchesTab />;
    case 'policies':
      return <PoliciesTab />;
    case 'ignore-rules':
      return <IgnoreRulesTab />;
    case 'custom-issues':
      return <CustomIssuesTab />;
    case 'indexed-repos':
      return <IndexedReposTab />;
    case 'source-repos':
      return <SourceReposTab />;
    case 'advisories':
      return <AdvisoriesTab />;
  }
}

/**
 * Security & Compliance (spec 000 §2 `security_policies`, which the teaser redirects to): violations, security
 * issues and licences for everyone signed in (of what they may read); watches, policies, ignore rules, indexed
 * repositories and the advisory database for admins (hidden from others; the server refuses them too).
 */
export function SecurityPage() {
  const session = useSession();
  const navigate = useNavigate();
  const { tab } = useParams();
  const admin = session.user?.admin === true;
  const tabs = SECURITY_TABS.filter((t) => admin || !t.adminOnly);
  const active = tabs.find((t) => t.key === tab);
  // spec 000 §2: without the scanning service or a licence that includes it, the teaser explains what is missing
  // (the teaser sends here when both are present).
  if (!session.loading && !(session.microservices.xray && session.entitlements?.entitlements.scanning)) {
    return <Navigate to="/security-and-compliance-teaser" replace />;
  }
  if (!active) return <Navigate to={securityTabPath('violations')} replace />;
  return (
    <Flex vertical gap="middle" className="security-page">
      <title>{pageTitle(`Security & Compliance - ${active.label}`, session.generalConfig?.serverName)}</title>
      <Typography.Title level={1} style={{ margin: 0, fontSize: 26 }}>
        Security &amp; Compliance
      </Typography.Title>
      <Tabs
        activeKey={active.key}
        onChange={(key) => navigate(securityTabPath(key as SecurityTab))}
        items={tabs.map((t) => ({
          key: t.key,
          label: t.label,
          children: t.key === active.key ? tabContent(t.key, admin) : null,
        }))}
      />
    </Flex>
  );
}
