import { PlusOutlined } from '@ant-design/icons';
import { GIT_VENDOR_NAMES, type GitVendorName } from '@granary/contracts';
import { useQuery } from '@tanstack/react-query';
import { Card, Flex, Tag, Typography } from 'antd';
import { useState } from 'react';
import { Link, useNavigate } from 'react-router';
import { useSession } from '../../../shared/session/SessionProvider.tsx';
import { pageTitle } from '../../../shared/session/shellContext.ts';
import { GitIntegrationModal } from '../components/GitIntegrationModal.tsx';
import { CardLogo, IntegrationCard } from '../components/IntegrationCard.tsx';
import { ToolModal } from '../components/ToolModal.tsx';
import { UserIntegrations } from '../components/UserIntegrations.tsx';
import { integrationGroupsQueryOptions, useGitAvailable, VENDOR_DISPLAY_NAMES } from '../gitQueries.ts';
import '../integrations.css';
import { TOOL_CARDS, TOOL_GROUPS, type ToolCard } from '../toolCards.ts';

const VENDOR_LOGO: Record<GitVendorName, { text: string; color: string }> = {
  github: { text: 'GH', color: '#24292f' },
  gitlab: { text: 'GL', color: '#c6461c' },
  bitbucket_cloud: { text: 'BC', color: '#0052cc' },
  bitbucket_server: { text: 'BS', color: '#003d99' },
};
const TOOL_LOGO: Record<string, { text: string; color: string }> = {
  jetbrains: { text: 'JB', color: '#000000' },
  vscode: { text: 'VS', color: '#005a9e' },
  'android-studio': { text: 'AS', color: '#1d6b3f' },
  'docker-desktop': { text: 'DD', color: '#0b63b8' },
  'jfrog-cli': { text: 'CLI', color: '#2e7d32' },
  'github-actions': { text: 'GA', color: '#6f42c1' },
  'azure-devops': { text: 'AZ', color: '#0062ad' },
  frogbot: { text: 'FB', color: '#b3261e' },
};

function Group({ name, children }: { name: string; children: React.ReactNode }) {
  return (
    <section aria-label={name}>
      <Typography.Title level={2} style={{ fontSize: 18 }}>
        {name}
      </Typography.Title>
      <Flex wrap gap="middle">
        {children}
      </Flex>
    </section>
  );
}

/** Source control cards (spec 001 §2): status from the vendors' integrations; admins with the feature on only (§4, §6). */
function SourceControlGroup() {
  const navigate = useNavigate();
  const groups = useQuery(integrationGroupsQueryOptions());
  const [creating, setCreating] = useState<GitVendorName | null>(null);
  if (groups.isError) {
    // spec 001 §8: failures loading integrations are only logged; the cards show DISCONNECTED.
    console.warn('Could not load the git integrations', groups.error);
  }
  const git = groups.data?.find((g) => g.type === 'git');
  // spec 001 §4: only when the git repo scanning feature is supported here.
  if (git && !git.available) return null;
  const vendors = { data: git?.items };
  return (
    <Group name="Source Control">
      {GIT_VENDOR_NAMES.map((name) => {
        const vendor = vendors.data?.find((v) => v.name === name);
        const count = vendor?.integrations.length ?? 0;
        const connected = count > 0;
        const configured = vendor?.configured ?? false;
        const products = new Set((vendor?.integrations ?? []).flatMap((i) => i.products));
        return (
          <IntegrationCard
            key={name}
            name={VENDOR_DISPLAY_NAMES[name]}
            logo={<CardLogo {...VENDOR_LOGO[name]} />}
            status={{ connected, configured }}
            services={
              <Flex gap={4}>
                {(['xray', 'pipelines'] as const).map((p) => (
                  <Tag key={p} color={products.has(p) ? 'green' : undefined} style={{ marginInlineEnd: 0 }}>
                    {p}
                  </Tag>
                ))}
              </Flex>
            }
            actionLabel={connected ? '+' : 'Connect'}
            onAction={() => setCreating(name)}
            onOpen={connected ? () => navigate(`/integrations/${name}`) : undefined}
          />
        );
      })}
      {creating && (
        <GitIntegrationModal vendor={creating} editing={null} open onClose={() => setCreating(null)} />
      )}
    </Group>
  );
}

/** spec 001 §2 /integrations (name integrations): the card groups, and the applications the user authorized. */
export function IntegrationsPage() {
  const session = useSession();
  const gitAvailable = useGitAvailable();
  const [tool, setTool] = useState<ToolCard | null>(null);
  const username = session.user?.name ?? '';
  return (
    <Flex vertical gap="large">
      <title>{pageTitle('Integrations', session.generalConfig?.serverName)}</title>
      <Flex justify="space-between" align="center" wrap gap="middle">
        <Typography.Title level={1} style={{ margin: 0, fontSize: 26 }}>
          Integrations
        </Typography.Title>
        {session.user?.admin && (
          <Link to="/admin/configuration/integrations">
            <PlusOutlined /> Application integrations
          </Link>
        )}
      </Flex>
      {gitAvailable && <SourceControlGroup />}
      {TOOL_GROUPS.map((g) => (
        <Group key={g.type} name={g.name}>
          {TOOL_CARDS.filter((c) => c.group === g.type).map((c) => (
            <IntegrationCard
              key={c.id}
              name={c.name}
              logo={<CardLogo {...(TOOL_LOGO[c.id] ?? { text: c.name.slice(0, 2), color: '#555' })} />}
              services={
                <Typography.Text type="secondary" style={{ fontSize: 12 }}>
                  {c.highlights[0]}
                </Typography.Text>
              }
              actionLabel="Set up"
              onAction={() => setTool(c)}
            />
          ))}
        </Group>
      ))}
      {username && (
        <Card title={<h2 className="card-heading">Authorized applications</h2>} variant="borderless">
          <UserIntegrations username={username} />
        </Card>
      )}
      <ToolModal card={tool} onClose={() => setTool(null)} />
    </Flex>
  );
}
