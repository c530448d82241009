import { type Group, userNameSchema } from '@granary/contracts';
import { useQuery } from '@tanstack/react-query';
import { App, Button, Card, Checkbox, Form, Input, Select, Space } from 'antd';
import { useNavigate, useParams } from 'react-router';
import { AdminPage, QueryState } from '../../../shared/components/AdminPage.tsx';
import { ErrorAlert } from '../../../shared/components/ErrorAlert.tsx';
import { mandatoryText } from '../../../shared/forms/rules.ts';
import { zodRule } from '../../../shared/forms/zodRule.ts';
import { groupQueryOptions, usersQueryOptions, useSaveGroupMutation } from '../queries.ts';

interface GroupForm {
  name: string;
  description: string;
  adminPrivileges: boolean;
  autoJoin: boolean;
  members: string[];
}

const TRAIL: [string, string][] = [['Groups', '/admin/management/groups']];

/** spec 000 §2 admin.management.groups new (/admin/management/groups/new) and edit. */
export function GroupFormPage() {
  const { groupName } = useParams();
  return groupName ? <EditGroup name={groupName} /> : <GroupEditor group={null} />;
}

function EditGroup({ name }: { name: string }) {
  const group = useQuery(groupQueryOptions(name));
  if (!group.data) {
    return (
      <AdminPage title={`Edit ${name}`} trail={TRAIL}>
        <QueryState
          isPending={group.isPending}
          error={group.error}
          onRetry={() => void group.refetch()}
          what={`group ${name}`}
        />
      </AdminPage>
    );
  }
  return <GroupEditor group={group.data} />;
}

function GroupEditor({ group }: { group: Group | null }) {
  const navigate = useNavigate();
  const { message } = App.useApp();
  const users = useQuery(usersQueryOptions());
  const save = useSaveGroupMutation();
  const isNew = group === null;

  const onFinish = (values: GroupForm) => {
    const name = group?.name ?? values.name.trim();
    save.mutate(
      {
        name,
        group: {
          name,
          description: values.description,
          adminPrivileges: values.adminPrivileges,
          autoJoin: values.autoJoin,
          members: values.members,
        },
      },
      {
        onSuccess: () => {
          message.success(isNew ? `Group ${name} created` : `Group ${name} saved`);
          navigate('/admin/management/groups');
        },
      },
    );
  };

  return (
    <AdminPage title={isNew ? 'New Group' : `Edit ${group.name}`} trail={TRAIL}>
      <Card variant="borderless">
        {save.isError && <ErrorAlert error={save.error} style={{ marginBottom: 16 }} />}
        <Form<GroupForm>
          layout="vertical"
          style={{ maxWidth: 560 }}
          initialValues={{
            name: group?.name ?? '',
            description: group?.description ?? '',
            adminPrivileges: group?.adminPrivileges ?? false,
            autoJoin: group?.autoJoin ?? false,
            members: group?.members ?? [],
          }}
          onFinish={onFinish}
          disabled={save.isPending}
        >
          {isNew && (
            <Form.Item
              label="Group name"
              name="name"
              required
              rules={[zodRule(mandatoryText), zodRule(userNameSchema)]}
            >
              <Input autoComplete="off" />
            </Form.Item>
          )}
          <Form.Item label="Description" name="description">
            <Input.TextArea rows={3} maxLength={1024} />
          </Form.Item>
          <Form.Item label="Members" name="members">
            <Select
              mode="multiple"
              aria-label="Members"
              loading={users.isPending}
              options={(users.data ?? []).map((u) => ({ value: u.name, label: u.name }))}
              placeholder="No members"
            />
          </Form.Item>
          <Form.Item name="adminPrivileges" valuePropName="checked" style={{ marginBottom: 8 }}>
            <Checkbox>Members are administrators</Checkbox>
          </Form.Item>
          <Form.Item name="autoJoin" valuePropName="checked">
            <Checkbox>New users join this group automatically</Checkbox>
          </Form.Item>
          <Space>
            <Button type="primary" htmlType="submit" loading={save.isPending}>
              {isNew ? 'Create Group' : 'Save'}
            </Button>
            <Button onClick={() => navigate('/admin/management/groups')}>Cancel</Button>
          </Space>
        </Form>
      </Card>
    </AdminPage>
  );
}
