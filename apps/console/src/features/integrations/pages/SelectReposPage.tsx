import {
  GIT_VENDOR_NAMES,
  type GitVendorName,
  type RepositoryFinding,
  type VcsRepository,
} from '@granary/contracts';
import { useQuery } from '@tanstack/react-query';
import {
  App,
  Breadcrumb,
  Button,
  Card,
  Collapse,
  Empty,
  Flex,
  Input,
  Result,
  Table,
  Tag,
  Typography,
} from 'antd';
import { useEffect, useMemo, useState } from 'react';
import { Link, useSearchParams } from 'react-router';
import { ErrorAlert } from '../../../shared/components/ErrorAlert.tsx';
import { useSession } from '../../../shared/session/SessionProvider.tsx';
import { pageTitle } from '../../../shared/session/shellContext.ts';
import {
  repositoriesQueryOptions,
  scansQueryOptions,
  useGitAvailable,
  useScanRepositoriesMutation,
  useSelectRepositoriesMutation,
  VENDOR_DISPLAY_NAMES,
} from '../gitQueries.ts';

const SEVERITY_COLOR: Record<string, string> = {
  critical: '#820014',
  high: '#a8071a',
  medium: '#874d00',
  low: '#0050b3',
};

/**
 * spec 001 §2 git scanning route (gitRepoScan.selectRepos, ?vcsType&integrationId): choose which of the vendor's
 * repositories Granary scans, then their scan results (vulnerabilities and licences of the dependency manifests
 * against the advisory database).
 */
export function SelectReposPage() {
  const [params] = useSearchParams();
  const vcsType = params.get('vcsType') ?? '';
  const integrationId = params.get('integrationId') ?? '';
  const available = useGitAvailable();
  if (!GIT_VENDOR_NAMES.includes(vcsType as GitVendorName) || !integrationId)
    return <Result status="404" title="Page not found" subTitle="vcsType and integrationId are needed" />;
  if (!available) return <Result status="403" title="Git integrations are for administrators" />;
  return <SelectRepos vendor={vcsType as GitVendorName} integrationKey={integrationId} />;
}

function SelectRepos({ vendor, integrationKey }: { vendor: GitVendorName; integrationKey: string }) {
  const session = useSession();
  const { message } = App.useApp();
  const repos = useQuery(repositoriesQueryOptions(integrationKey));
  const scans = useQuery(scansQueryOptions(integrationKey));
  const select = useSelectRepositoriesMutation(integrationKey);
  const rescan = useScanRepositoriesMutation(integrationKey);
  const [chosen, setChosen] = useState<string[]>([]);
  const [filter, setFilter] = useState('');
  const display = VENDOR_DISPLAY_NAMES[vendor];

  useEffect(() => {
    if (repos.data) setChosen(repos.data.filter((r) => r.selected).map((r) => r.fullName));
  }, [repos.data]);
  const rows = useMemo(() => {
    const term = filter.trim().toLowerCase();
    return (repos.data ?? []).filter((r) => r.fullName.toLowerCase().includes(term));
  }, [repos.data, filter]);

  return (
    <Flex vertical gap="middle">
      <title>{pageTitle('Select Repositories', session.generalConfig?.serverName)}</title>
      <Breadcrumb
        items={[
          { title: <Link to="/integrations">Integrations</Link> },
          { title: <Link to={`/integrations/${vendor}`}>{`${display} Instances`}</Link> },
          { title: 'Select Repositories' },
        ]}
      />
      <Typography.Title level={1} style={{ margin: 0, fontSize: 26 }}>
        Select Repositories
      </Typography.Title>
      <Card title={<h2 className="card-heading">{`${display} repositories`}</h2>} variant="borderless">
        <Flex vertical gap="middle">
          {repos.isError && <ErrorAlert title="Could not list the repositories" error={repos.error} />}
          <Flex gap="middle" wrap align="center">
            <Input.Search
              aria-label="Filter repositories"
              placeholder="Filter"
              allowClear
              value={filter}
              onChange={(e) => setFilter(e.target.value)}
              style={{ maxWidth: 320 }}
            />
            <Button
              type="primary"
              loading={select.isPending}
              disabled={!repos.data}
              onClick={() =>
                select.mutate(
                  { repositories: chosen },
                  {
                    onSuccess: () => message.success(`Scanning ${chosen.length} repositories`),
                    onError: (e) => message.error(e.message),
                  },
                )
              }
            >
              Scan selected ({chosen.length})
            </Button>
          </Flex>
          <Table<VcsRepository>
            rowKey="fullName"
            size="small"
            loading={repos.isPending}
            dataSource={rows}
            pagination={{ pageSize: 20, hideOnSinglePage: true }}
            rowSelection={{
              selectedRowKeys: chosen,
              onChange: (keys) => setChosen(keys.map(String)),
              getCheckboxProps: (r) => ({ 'aria-label': `Select ${r.fullName}` }),
            }}
            columns={[
              {
                title: 'Repository',
                dataIndex: 'fullName',
                render: (name: string, r) => (
                  <a href={r.url} target="_blank" rel="noopener noreferrer">
                    {name}
                  </a>
                ),
              },
              { title: 'Default Branch', dataIndex: 'defaultBranch' },
              {
                title: 'Visibility',
                dataIndex: 'private',
                render: (p: boolean) => (p ? 'private' : 'public'),
              },
            ]}
          />
        </Flex>
      </Card>
      <Card
        title={<h2 className="card-heading">Scan results</h2>}
        variant="borderless"
        extra={
          <Button
            onClick={() => rescan.mutate(undefined)}
            loading={rescan.isPending}
            disabled={!scans.data?.length}
          >
            Scan again
          </Button>
        }
      >
        {scans.isError && <ErrorAlert title="Could not load the scan results" error={scans.error} />}
        {scans.data && scans.data.length === 0 && (
          <Empty description="No repository selected for scanning yet." />
        )}
        {scans.data && scans.data.length > 0 && (
          <Collapse
            defaultActiveKey={scans.data.map((s) => s.repository)}
            items={scans.data.map((s) => ({
              key: s.repository,
              label: (
                <Flex gap="small" align="center" wrap>
                  <Typography.Text strong>{s.repository}</Typography.Text>
                  <Tag>{s.status}</Tag>
                  {s.status === 'done' && (
                    <Typography.Text type={s.findings.length ? 'danger' : 'secondary'}>
                      {s.findings.length} vulnerabilities · {s.components} components
                    </Typography.Text>
                  )}
                  {s.scannedAt && (
                    <Typography.Text type="secondary">
                      {new Date(s.scannedAt).toLocaleString()}
                    </Typography.Text>
                  )}
                </Flex>
              ),
              children: (
                <Flex vertical gap="small">
                  {s.error && <Typography.Text type="danger">{s.error}</Typography.Text>}
                  <Typography.Text type="secondary">
                    Manifests: {s.manifests.length ? s.manifests.join(', ') : 'none found'}
                  </Typography.Text>
                  <Table<RepositoryFinding>
                    rowKey={(f) => `${f.manifest}:${f.package}:${f.version}:${f.advisoryId}`}
                    size="small"
                    dataSource={s.findings}
                    pagination={false}
                    locale={{
                      emptyText: <Typography.Text type="secondary">No known vulnerability</Typography.Text>,
                    }}
                    columns={[
                      { title: 'Package', dataIndex: 'package' },
                      { title: 'Version', dataIndex: 'version' },
                      { title: 'Advisory', dataIndex: 'advisoryId' },
                      {
                        title: 'Severity',
                        dataIndex: 'severity',
                        render: (sev: string) => (
                          <Tag color={SEVERITY_COLOR[sev.toLowerCase()] ?? 'default'}>{sev}</Tag>
                        ),
                      },
                      {
                        title: 'Fixed In',
                        dataIndex: 'fixedVersions',
                        render: (v: string[]) => v.join(', '),
                      },
                      { title: 'Manifest', dataIndex: 'manifest' },
                    ]}
                  />
                  {s.licenses.length > 0 && (
                    <Typography.Text type="secondary">
                      Licences:{' '}
                      {[...new Set(s.licenses.map((l) => l.license))].map((l) => (
                        <Tag key={l}>{l}</Tag>
                      ))}
                    </Typography.Text>
                  )}
                </Flex>
              ),
            }))}
          />
        )}
      </Card>
    </Flex>
  );
}
