import type { UserIntegration } from '@granary/contracts';
import { useQuery } from '@tanstack/react-query';
import { App, Button, Popconfirm, Table, Tag, Typography } from 'antd';
import { useRevokeUserIntegrationMutation, userIntegrationsQueryOptions } from '../applicationQueries.ts';

/** issue 18 user integrations: the applications the signed-in user authorized, each revocable (its tokens die). */
export function UserIntegrations({ username }: { username: string }) {
  const { message } = App.useApp();
  const query = useQuery(userIntegrationsQueryOptions(username));
  const revoke = useRevokeUserIntegrationMutation();
  if (query.isError) {
    // spec 001 §8: failures loading integrations are only logged.
    console.warn('Could not load the authorized applications', query.error);
  }
  return (
    <Table<UserIntegration>
      rowKey="client_id"
      size="small"
      loading={query.isPending}
      dataSource={query.data ?? []}
      pagination={false}
      locale={{
        emptyText: (
          <Typography.Text type="secondary">You have not authorized any application.</Typography.Text>
        ),
      }}
      columns={[
        { title: 'Application', dataIndex: 'application_name' },
        {
          title: 'Access',
          dataIndex: 'scopes',
          render: (scopes: string[]) => scopes.map((s) => <Tag key={s}>{s}</Tag>),
        },
        {
          title: 'Authorized On',
          dataIndex: 'created',
          render: (at: string) => new Date(at).toLocaleString(),
        },
        {
          title: 'Last Used',
          dataIndex: 'last_used',
          render: (at: string | null) =>
            at ? new Date(at).toLocaleString() : <Typography.Text type="secondary">Never</Typography.Text>,
        },
        {
          title: 'Actions',
          key: 'actions',
          render: (_, u) => (
            <Popconfirm
              title={`Revoke ${u.application_name}?`}
              description="Its tokens stop working at once."
              okText="Revoke"
              okButtonProps={{ danger: true }}
              onConfirm={() =>
                revoke.mutateAsync({ clientId: u.client_id, username }).then(
                  () => message.success(`Revoked ${u.application_name}`),
                  (error: Error) => message.error(error.message),
                )
              }
            >
              <Button size="small" danger aria-label={`Revoke ${u.application_name}`}>
                Revoke
              </Button>
            </Popconfirm>
          ),
        },
      ]}
    />
  );
}
