import { PlusOutlined } from '@ant-design/icons';
import {
  ACCESS_MESSAGES,
  PROJECT_KEY_MAX_LENGTH,
  type Project,
  type ProjectCreate,
  projectKeySchema,
} from '@granary/contracts';
import { useQueries, useQuery } from '@tanstack/react-query';
import { App, Button, Card, Empty, Flex, Form, Input, Modal, Table, Tag, Typography } from 'antd';
import { useState } from 'react';
import { QueryState } from '../../../shared/components/AdminPage.tsx';
import { ErrorAlert } from '../../../shared/components/ErrorAlert.tsx';
import { mandatoryText } from '../../../shared/forms/rules.ts';
import { zodRule } from '../../../shared/forms/zodRule.ts';
import { useSession } from '../../../shared/session/SessionProvider.tsx';
import {
  myProjectsQueryOptions,
  projectMembersQueryOptions,
  useCreateOnboardingProjectMutation,
} from '../queries.ts';

interface ProjectForm {
  project_key: string;
  display_name: string;
}

/** The roles one project gives the user: their own membership and their groups'. */
function useRoles(projects: Project[], user: string, groups: readonly string[]) {
  const users = useQueries({
    queries: projects.map((p) => projectMembersQueryOptions(p.project_key, 'users')),
  });
  const byGroup = useQueries({
    queries: projects.map((p) => projectMembersQueryOptions(p.project_key, 'groups')),
  });
  return new Map(
    projects.map((p, i) => {
      const roles = new Set<string>();
      for (const m of users[i]?.data ?? []) if (m.name === user) for (const r of m.roles) roles.add(r);
      for (const m of byGroup[i]?.data ?? [])
        if (groups.includes(m.name)) for (const r of m.roles) roles.add(r);
      return [p.project_key, [...roles]];
    }),
  );
}

/**
 * spec 000 §2 /projects (used by onboarding): the projects the user belongs to with their roles there, and Create
 * for those allowed (admins; the server refuses everyone else). spec 000 §8: a failed creation says
 * "Failed to create a project".
 */
export function ProjectsPage() {
  const session = useSession();
  const user = session.user;
  const projects = useQuery(myProjectsQueryOptions());
  const roles = useRoles(projects.data ?? [], user?.name ?? '', user?.groups ?? []);
  const [creating, setCreating] = useState(false);
  const admin = user?.admin ?? false;
  return (
    <Flex vertical gap="middle">
      <Flex justify="space-between" align="center" wrap gap="middle">
        <Typography.Title level={1} style={{ margin: 0, fontSize: 26 }}>
          Projects
        </Typography.Title>
        {admin && (
          <Button type="primary" icon={<PlusOutlined />} onClick={() => setCreating(true)}>
            Create Project
          </Button>
        )}
      </Flex>
      <Card variant="borderless">
        <QueryState
          isPending={projects.isPending}
          error={projects.error}
          onRetry={() => void projects.refetch()}
          what="your projects"
        />
        {projects.data && (
          <Table<Project>
            rowKey="project_key"
            dataSource={projects.data}
            pagination={{ pageSize: 25, hideOnSinglePage: true }}
            locale={{ emptyText: <Empty description="You are not a member of any project yet" /> }}
            columns={[
              { title: 'Name', dataIndex: 'display_name' },
              { title: 'Key', dataIndex: 'project_key' },
              {
                title: 'Your roles',
                key: 'roles',
                render: (_, p) => {
                  const mine = roles.get(p.project_key) ?? [];
                  if (mine.length === 0)
                    return admin ? (
                      <Tag color="green">Administrator</Tag>
                    ) : (
                      <Typography.Text type="secondary">—</Typography.Text>
                    );
                  return mine.map((r) => <Tag key={r}>{r}</Tag>);
                },
              },
            ]}
          />
        )}
      </Card>
      <CreateProjectModal open={creating} onClose={() => setCreating(false)} />
    </Flex>
  );
}

function CreateProjectModal({ open, onClose }: { open: boolean; onClose: () => void }) {
  const [form] = Form.useForm<ProjectForm>();
  const create = useCreateOnboardingProjectMutation();
  const { message } = App.useApp();
  const close = () => {
    form.resetFields();
    create.reset();
    onClose();
  };
  const onFinish = (values: ProjectForm) => {
    const body: ProjectCreate = { project_key: values.project_key, display_name: values.display_name.trim() };
    create.mutate(body, {
      onSuccess: (project) => {
        message.success(`Project ${project.display_name} created`);
        close();
      },
    });
  };
  return (
    <Modal
      title="Create Project"
      open={open}
      onCancel={close}
      okText="Create"
      onOk={() => form.submit()}
      confirmLoading={create.isPending}
      destroyOnHidden
    >
      {create.isError && (
        <ErrorAlert
          title={ACCESS_MESSAGES.projectCreateFailure}
          error={create.error}
          style={{ marginBottom: 16 }}
        />
      )}
      <Form<ProjectForm> form={form} layout="vertical" onFinish={onFinish}>
        <Form.Item label="Project name" name="display_name" required rules={[zodRule(mandatoryText)]}>
          <Input maxLength={256} />
        </Form.Item>
        <Form.Item
          label="Project key"
          name="project_key"
          required
          extra={`Starts with a lowercase letter; at most ${PROJECT_KEY_MAX_LENGTH} characters.`}
          rules={[zodRule(projectKeySchema)]}
        >
          <Input autoComplete="off" />
        </Form.Item>
      </Form>
    </Modal>
  );
}
