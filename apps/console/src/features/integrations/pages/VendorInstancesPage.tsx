import { PlusOutlined } from '@ant-design/icons';
import {
  GIT_VENDOR_NAMES,
  type GitIntegration,
  type GitVendorName,
  INTEGRATION_MESSAGES,
} from '@granary/contracts';
import { useQuery } from '@tanstack/react-query';
import {
  App,
  Breadcrumb,
  Button,
  Card,
  Flex,
  Input,
  Popconfirm,
  Result,
  Space,
  Table,
  Tag,
  Typography,
} from 'antd';
import { useMemo, useState } from 'react';
import { Link, useNavigate, useParams } from 'react-router';
import { useSession } from '../../../shared/session/SessionProvider.tsx';
import { pageTitle } from '../../../shared/session/shellContext.ts';
import { GitIntegrationModal } from '../components/GitIntegrationModal.tsx';
import {
  useDeleteGitIntegrationMutation,
  useGitAvailable,
  VENDOR_DISPLAY_NAMES,
  vendorIntegrationsQueryOptions,
} from '../gitQueries.ts';

const isVendor = (v: string | undefined): v is GitVendorName => GIT_VENDOR_NAMES.includes(v as GitVendorName);

/**
 * spec 001 §2 integrations/{vendorName} (integrations.vendor.list): the vendor's instances — Integration Name, URL,
 * Product ('Select a Product' when none), Created On (local date and time); row actions Manage Repositories (only
 * with xray), Edit Integration, Delete; breadcrumb 'Integrations' then '{vendor} Instances'; the count in the title;
 * a quick text filter. §8 notifications on delete.
 */
export function VendorInstancesPage() {
  const { vendorName } = useParams();
  const available = useGitAvailable();
  if (!isVendor(vendorName)) return <Result status="404" title="Page not found" />;
  if (!available)
    return <Result status="403" title="Git integrations are for administrators" subTitle="spec 001 §6" />;
  return <VendorInstances vendor={vendorName} />;
}

function VendorInstances({ vendor }: { vendor: GitVendorName }) {
  const session = useSession();
  const navigate = useNavigate();
  const { notification } = App.useApp();
  const query = useQuery(vendorIntegrationsQueryOptions(vendor));
  const remove = useDeleteGitIntegrationMutation();
  const [filter, setFilter] = useState('');
  const [modal, setModal] = useState<{ editing: GitIntegration | null } | null>(null);
  const display = VENDOR_DISPLAY_NAMES[vendor];
  if (query.isError) console.warn('Could not load the integrations', query.error); // spec 001 §8: only logged
  const rows = useMemo(() => {
    const term = filter.trim().toLowerCase();
    return (query.data ?? []).filter(
      (i) =>
        i.name.toLowerCase().includes(term) ||
        i.url.toLowerCase().includes(term) ||
        i.products.join(' ').toLowerCase().includes(term),
    );
  }, [query.data, filter]);
  const count = query.data?.length ?? 0;
  const title = `${display} Instances (${count})`;

  return (
    <Flex vertical gap="middle">
      <title>{pageTitle(`${display} Instances`, session.generalConfig?.serverName)}</title>
      <Breadcrumb
        items={[{ title: <Link to="/integrations">Integrations</Link> }, { title: `${display} Instances` }]}
      />
      <Flex justify="space-between" align="center" wrap gap="middle">
        <Typography.Title level={1} style={{ margin: 0, fontSize: 26 }}>
          {title}
        </Typography.Title>
        <Button type="primary" icon={<PlusOutlined />} onClick={() => setModal({ editing: null })}>
          New Integration
        </Button>
      </Flex>
      <Card variant="borderless">
        <Flex vertical gap="middle">
          <Input.Search
            aria-label="Filter integrations"
            placeholder="Filter"
            allowClear
            value={filter}
            onChange={(e) => setFilter(e.target.value)}
            style={{ maxWidth: 320 }}
          />
          <Table<GitIntegration>
            rowKey="key"
            loading={query.isPending}
            dataSource={rows}
            pagination={{ pageSize: 25, hideOnSinglePage: true }}
            columns={[
              {
                title: 'Integration Name',
                dataIndex: 'name',
                sorter: (a, b) => a.name.localeCompare(b.name),
                defaultSortOrder: 'ascend',
              },
              { title: 'URL', dataIndex: 'url' },
              {
                title: 'Product',
                dataIndex: 'products',
                render: (products: string[], i) =>
                  products.length ? (
                    products.map((p) => <Tag key={p}>{p}</Tag>)
                  ) : (
                    <Button type="link" style={{ padding: 0 }} onClick={() => setModal({ editing: i })}>
                      Select a Product
                    </Button>
                  ),
              },
              {
                title: 'Created On',
                dataIndex: 'createdOn',
                render: (at: string) => new Date(at).toLocaleString(),
              },
              {
                title: 'Actions',
                key: 'actions',
                render: (_, i) => (
                  <Space size="small" wrap>
                    {i.products.includes('xray') && (
                      <Button
                        size="small"
                        aria-label={`Manage Repositories of ${i.name}`}
                        onClick={() =>
                          navigate(
                            `/integrations/gitRepoScan/selectRepos?vcsType=${vendor}&integrationId=${encodeURIComponent(i.key)}`,
                          )
                        }
                      >
                        Manage Repositories
                      </Button>
                    )}
                    <Button
                      size="small"
                      aria-label={`Edit Integration ${i.name}`}
                      onClick={() => setModal({ editing: i })}
                    >
                      Edit Integration
                    </Button>
                    <Popconfirm
                      title={`Delete ${i.name}?`}
                      description="Its repository selection and scan results are deleted with it."
                      okText="Delete"
                      okButtonProps={{ danger: true }}
                      onConfirm={() =>
                        remove.mutateAsync(i.key).then(
                          () =>
                            notification.info({ title: INTEGRATION_MESSAGES.deleted, description: i.key }),
                          () => notification.error({ title: INTEGRATION_MESSAGES.deleteFailed }),
                        )
                      }
                    >
                      <Button size="small" danger aria-label={`Delete ${i.name}`}>
                        Delete
                      </Button>
                    </Popconfirm>
                  </Space>
                ),
              },
            ]}
          />
        </Flex>
      </Card>
      {modal && (
        <GitIntegrationModal vendor={vendor} editing={modal.editing} open onClose={() => setModal(null)} />
      )}
    </Flex>
  );
}
