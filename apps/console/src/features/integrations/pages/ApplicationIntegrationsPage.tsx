import { PlusOutlined } from '@ant-design/icons';
import { APPLICATION_MESSAGES, type Application } from '@granary/contracts';
import { useQuery } from '@tanstack/react-query';
import { App, Button, Card, Empty, Flex, Input, Table, Typography } from 'antd';
import { useMemo, useState } from 'react';
import { Link, useNavigate } from 'react-router';
import { AdminPage, QueryState } from '../../../shared/components/AdminPage.tsx';
import { applicationsQueryOptions, useDeleteApplicationMutation } from '../applicationQueries.ts';

export const APPLICATIONS_PATH = '/admin/configuration/integrations';

/**
 * spec 001 §2 admin configuration/integrations (issue 18): the application integrations (OAuth applications) with
 * their client ids; delete asks the §8 confirm and says the §8 notification.
 */
export function ApplicationIntegrationsPage() {
  const { modal, message } = App.useApp();
  const navigate = useNavigate();
  const query = useQuery(applicationsQueryOptions());
  const remove = useDeleteApplicationMutation();
  const [search, setSearch] = useState('');
  const rows = useMemo(() => {
    const term = search.trim().toLowerCase();
    return (query.data ?? []).filter(
      (a) => a.name.toLowerCase().includes(term) || a.clientId.toLowerCase().includes(term),
    );
  }, [query.data, search]);
  const create = () => navigate(`${APPLICATIONS_PATH}/new`);
  const confirmDelete = (app: Application) =>
    modal.confirm({
      title: 'Delete Integration',
      content: APPLICATION_MESSAGES.deleteConfirm(app.name),
      okText: 'Delete',
      okButtonProps: { danger: true },
      onOk: () =>
        remove.mutateAsync(app.id).then(
          () => message.success(APPLICATION_MESSAGES.deleted(app.name)),
          (error: Error) => message.error(error.message),
        ),
    });

  return (
    <AdminPage
      title="Integrations"
      extra={
        <Flex gap="small">
          <Button onClick={() => navigate('/integrations')}>Source control and tools</Button>
          <Button type="primary" icon={<PlusOutlined />} onClick={create}>
            New Integration
          </Button>
        </Flex>
      }
    >
      <Card variant="borderless">
        <Flex vertical gap="middle">
          <Typography.Paragraph type="secondary" style={{ margin: 0 }}>
            Applications that act for a user who authorizes them (OAuth 2.0 authorization code with PKCE). The
            user’s current rights apply; a user can revoke an application at any time.
          </Typography.Paragraph>
          <QueryState
            isPending={query.isPending}
            error={query.error}
            onRetry={() => void query.refetch()}
            what="the application integrations"
          />
          {query.data && query.data.length === 0 && (
            <Empty description="No application integrations yet.">
              <Button type="primary" icon={<PlusOutlined />} onClick={create}>
                Create an integration
              </Button>
            </Empty>
          )}
          {query.data && query.data.length > 0 && (
            <>
              <Input.Search
                aria-label="Search integrations"
                placeholder="Search integrations"
                allowClear
                value={search}
                onChange={(e) => setSearch(e.target.value)}
                style={{ maxWidth: 320 }}
              />
              <Table<Application>
                rowKey="id"
                dataSource={rows}
                pagination={{ pageSize: 25, hideOnSinglePage: true }}
                columns={[
                  {
                    title: 'Application Name',
                    dataIndex: 'name',
                    defaultSortOrder: 'ascend',
                    sorter: (a, b) => a.name.localeCompare(b.name),
                    render: (name: string, a) => (
                      <Flex vertical>
                        <Typography.Text strong>{name}</Typography.Text>
                        {a.description && <Typography.Text type="secondary">{a.description}</Typography.Text>}
                      </Flex>
                    ),
                  },
                  { title: 'Application Type', dataIndex: 'type' },
                  {
                    title: 'Client ID',
                    dataIndex: 'clientId',
                    render: (id: string) => <Typography.Text copyable>{id}</Typography.Text>,
                  },
                  {
                    title: 'Callback URL',
                    dataIndex: 'callbackUrl',
                    render: (url: string) => (
                      <Typography.Text style={{ wordBreak: 'break-all' }}>{url}</Typography.Text>
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
                    render: (_, a) => (
                      <Button
                        size="small"
                        danger
                        aria-label={`Delete ${a.name}`}
                        onClick={() => confirmDelete(a)}
                      >
                        Delete
                      </Button>
                    ),
                  },
                ]}
              />
            </>
          )}
          <Typography.Text type="secondary">
            Git integrations and developer tools are on the <Link to="/integrations">Integrations</Link> page.
          </Typography.Text>
        </Flex>
      </Card>
    </AdminPage>
  );
}
