import { ACCESS_MESSAGES } from '@granary/contracts';
import { useQuery } from '@tanstack/react-query';
import { Alert, Card, Descriptions, Flex, Skeleton, Table, Tag, Typography } from 'antd';
import { useEffect, useRef } from 'react';
import { useParams } from 'react-router';
import { ErrorAlert } from '../../../shared/components/ErrorAlert.tsx';
import { projectsQueryOptions } from '../../../shared/session/projects.ts';
import { useSession } from '../../../shared/session/SessionProvider.tsx';
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
  const session = useSession();
  const mine = useQuery(projectsQueryOptions());
  const visible = mine.data?.some((p) => p.project_key === projectKey) ?? false;
  const { selectProject } = session;
  // Issue 22: the project named in the URL becomes the selected project (so a project administrator gets its
  // settings sidebar), whatever the selector said before — a link or a reload with "All projects" selected. Once
  // per project opened: a later choice in the selector is the user's (the selector then leaves this screen).
  const synced = useRef<string | null>(null);
  useEffect(() => {
    if (!visible || synced.current === projectKey) return;
    synced.current = projectKey;
    selectProject(projectKey);
  }, [visible, projectKey, selectProject]);
  const project = useQuery({ ...projectQueryOptions(projectKey), enabled: visible });
  if (mine.isError) return <ErrorAlert title="Your projects could not be loaded" error={mine.error} />;
  if (mine.isSuccess && !visible) return <ProjectNotVisible projectKey={projectKey} />;
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

/** Issue 22: a project the user may not see (or that does not exist) is named, with what to do about it. */
function ProjectNotVisible({ projectKey }: { projectKey: string }) {
  return (
    <Flex vertical gap="large">
      <Typography.Title level={1}>Project settings</Typography.Title>
      <Alert
        type="warning"
        showIcon
        title={ACCESS_MESSAGES.notAuthorized}
        description={`There is no project "${projectKey}" among the projects you can see: it does not exist, or you are not one of its members. Ask an administrator to add you to it.`}
      />
    </Flex>
  );
}
