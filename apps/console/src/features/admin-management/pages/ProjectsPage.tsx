import { PlusOutlined } from '@ant-design/icons';
import {
  ACCESS_MESSAGES,
  PROJECT_KEY_MAX_LENGTH,
  type ProjectCreate,
  projectKeySchema,
} from '@granary/contracts';
import { useQuery } from '@tanstack/react-query';
import { App, Button, Card, Form, Input, Modal, Popconfirm, Table } from 'antd';
import { useState } from 'react';
import { AdminPage, QueryState } from '../../../shared/components/AdminPage.tsx';
import { ErrorAlert } from '../../../shared/components/ErrorAlert.tsx';
import { mandatoryText } from '../../../shared/forms/rules.ts';
import { zodRule } from '../../../shared/forms/zodRule.ts';
import { projectsQueryOptions, useCreateProjectMutation, useDeleteProjectMutation } from '../queries.ts';

interface ProjectForm {
  project_key: string;
  display_name: string;
  description: string;
}

/** Projects list and create (spec 000 §2 reserved path /admin/projects/list; spec 001 §5 key rules). */
export function ProjectsPage() {
  const projects = useQuery(projectsQueryOptions());
  const remove = useDeleteProjectMutation();
  const { message } = App.useApp();
  const [creating, setCreating] = useState(false);

  return (
    <AdminPage
      title="Projects"
      extra={
        <Button type="primary" icon={<PlusOutlined />} onClick={() => setCreating(true)}>
          New Project
        </Button>
      }
    >
      <Card variant="borderless">
        <QueryState
          isPending={projects.isPending}
          error={projects.error}
          onRetry={() => void projects.refetch()}
          what="the projects"
        />
        {projects.data && (
          <Table
            rowKey="project_key"
            dataSource={projects.data}
            pagination={{ pageSize: 25, hideOnSinglePage: true }}
            columns={[
              {
                title: 'Key',
                dataIndex: 'project_key',
                defaultSortOrder: 'ascend',
                sorter: (a, b) => a.project_key.localeCompare(b.project_key),
              },
              {
                title: 'Name',
                dataIndex: 'display_name',
                sorter: (a, b) => a.display_name.localeCompare(b.display_name),
              },
              { title: 'Description', dataIndex: 'description' },
              {
                title: 'Actions',
                key: 'actions',
                width: 120,
                render: (_, project) => (
                  <Popconfirm
                    title={`Delete project ${project.display_name}?`}
                    okText="Delete"
                    okButtonProps={{ danger: true }}
                    onConfirm={() =>
                      remove.mutateAsync(project.project_key).then(
                        () => message.success(`Project ${project.display_name} deleted`),
                        (error: Error) => message.error(error.message),
                      )
                    }
                  >
                    <Button size="small" danger aria-label={`Delete ${project.display_name}`}>
                      Delete
                    </Button>
                  </Popconfirm>
                ),
              },
            ]}
          />
        )}
      </Card>
      <CreateProjectModal open={creating} onClose={() => setCreating(false)} />
    </AdminPage>
  );
}

function CreateProjectModal({ open, onClose }: { open: boolean; onClose: () => void }) {
  const [form] = Form.useForm<ProjectForm>();
  const create = useCreateProjectMutation();
  const { message } = App.useApp();
  const close = () => {
    form.resetFields();
    create.reset();
    onClose();
  };
  const onFinish = (values: ProjectForm) => {
    const body: ProjectCreate = {
      project_key: values.project_key,
      display_name: values.display_name.trim(),
      ...(values.description?.trim() ? { description: values.description.trim() } : {}),
    };
    create.mutate(body, {
      onSuccess: (project) => {
        message.success(`Project ${project.display_name} created`);
        close();
      },
    });
  };
  return (
    <Modal
      title="New Project"
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
      <Form<ProjectForm>
        form={form}
        layout="vertical"
        onFinish={onFinish}
        initialValues={{ description: '' }}
      >
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
        <Form.Item label="Description" name="description">
          <Input.TextArea rows={3} maxLength={2048} />
        </Form.Item>
      </Form>
    </Modal>
  );
}
