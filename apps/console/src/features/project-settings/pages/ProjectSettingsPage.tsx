import { useQuery } from '@tanstack/react-query';
import { Card, Descriptions, Flex, Skeleton, Table, Tag, Typography } from 'antd';
import { useParams } from 'react-router';
import { ErrorAlert } from '../../../shared/components/ErrorAlert.tsx';
import { projectMembersQueryOptions, projectQueryOptions } from '../queries.ts';

function formatQuota(bytes: number | null): string {
  if (bytes === null) return 'No limit';
  const gib = bytes / 1024 ** 3;
  return gib >= 1 ? `${gib.toFixed(gib % 1 === 0 ? 0 : 1)} GiB` : `${Math.round(bytes / 1024 ** 2)} MiB`;
}

function Members({ projectKey, kind }: { projectKey: string; kind: 'users' | 'groups' }) {
  const members = useQuery(projectMembersQueryOptions(projectKey, kind));
  const title = kind === 'users' ? 'Users' : 'Groups';
  if (members.isError) return <ErrorAlert title={`Could not load the ${kind}`} error={members.error} />;
  return (
    <Card title={<h2 className="card-heading">{title}</h2>}>
      <Table
        rowKey="name"
        size="small"
        loading={members.isPending}
        dataSource={members.data?.members ?? []}
        pagination={false}
        locale={{
          emptyText: <span className="table-empty-text">{`No ${kind} are members of this project`}</span>,
        }}
        columns={[
          { title: 'Name', dataIndex: 'name' },
          {
            title: 'Roles',
            dataIndex: 'roles',
            render: (roles: string[]) => roles.map((role) => <Tag key={role}>{role}</Tag>),
          },
        ]}
      />
    </Card>
  );
}

/**
 * spec 000 §2 project settings (the sidebar a project administrator sees with a project selected): the
 * project's general settings and its members. Changes are made on the administrators' projects screen.
 */
export function ProjectSettingsPage({ section }: { section: 'general' | 'members' }) {
  const { projectKey = '' } = useParams();
  const project = useQuery(projectQueryOptions(projectKey));
  if (project.isPending) return <Skeleton active />;
  if (project.isError) return <ErrorAlert title="This project could not be shown" error={project.error} />;
  const p = project.data;
  return (
    <Flex vertical gap="large">
      <Typography.Title level={1}>
        {p.display_name} {section === 'members' ? 'members' : 'settings'}
      </Typography.Title>
      {section === 'general' ? (
        <Card title={<h2 className="card-heading">General</h2>}>
          <Descriptions
            column={1}
            bordered
            items={[
              { key: 'key', label: 'Project key', children: <code>{p.project_key}</code> },
              { key: 'name', label: 'Display name', children: p.display_name },
              { key: 'description', label: 'Description', children: p.description || '—' },
              { key: 'quota', label: 'Storage quota', children: formatQuota(p.storage_quota_bytes) },
              {
                key: 'privileges',
                label: 'Project admins may',
                children:
                  [
                    p.admin_privileges.manage_members && 'manage members',
                    p.admin_privileges.manage_resources && 'manage resources',
                    p.admin_privileges.index_resources && 'index resources',
                  ]
                    .filter(Boolean)
                    .join(', ') || 'nothing beyond viewing',
              },
            ]}
          />
        </Card>
      ) : (
        <>
          <Members projectKey={p.project_key} kind="users" />
          <Members projectKey={p.project_key} kind="groups" />
        </>
      )}
    </Flex>
  );
}
