import { ACCESS_MESSAGES, type User, type UserWrite, userNameSchema } from '@granary/contracts';
import { useQuery } from '@tanstack/react-query';
import { App, Button, Card, Checkbox, Flex, Form, Input, Popconfirm, Select, Space, Tag } from 'antd';
import { useNavigate, useParams } from 'react-router';
import { z } from 'zod';
import { AdminPage, QueryState } from '../../../shared/components/AdminPage.tsx';
import { ErrorAlert } from '../../../shared/components/ErrorAlert.tsx';
import { mandatoryText } from '../../../shared/forms/rules.ts';
import { zodRule } from '../../../shared/forms/zodRule.ts';
import {
  groupsQueryOptions,
  useDeleteUserMutation,
  userQueryOptions,
  useSaveUserMutation,
  useUnlockUserMutation,
  useUpdateUserMutation,
} from '../queries.ts';

interface UserForm {
  name: string;
  email: string;
  password: string;
  confirm: string;
  admin: boolean;
  disabled: boolean;
  profileUpdatable: boolean;
  groups: string[];
}

const emailRule = z.union([z.literal(''), z.email('Enter a valid email address')]);
const TRAIL: [string, string][] = [['Users', '/admin/management/users']];

/** spec 000 §2 admin.management.users new (/admin/management/users/new) and edit. */
export function UserFormPage() {
  const { userName } = useParams();
  return userName ? <EditUser name={userName} /> : <UserEditor user={null} />;
}

function EditUser({ name }: { name: string }) {
  const user = useQuery(userQueryOptions(name));
  if (!user.data) {
    return (
      <AdminPage title={`Edit ${name}`} trail={TRAIL}>
        <QueryState
          isPending={user.isPending}
          error={user.error}
          onRetry={() => void user.refetch()}
          what={`user ${name}`}
        />
      </AdminPage>
    );
  }
  return <UserEditor user={user.data} />;
}

function toWrite(values: UserForm, current: User | null): UserWrite {
  return {
    name: current?.name ?? values.name.trim(),
    email: values.email.trim() === '' ? null : values.email.trim(),
    admin: values.admin,
    disabled: values.disabled,
    profileUpdatable: values.profileUpdatable,
    groups: values.groups,
    passwordExpired: current?.passwordExpired ?? false,
    ...(values.password ? { password: values.password } : {}),
  };
}

function UserEditor({ user }: { user: User | null }) {
  const navigate = useNavigate();
  const { message } = App.useApp();
  const groups = useQuery(groupsQueryOptions());
  const save = useSaveUserMutation();
  const remove = useDeleteUserMutation();
  const unlock = useUnlockUserMutation();
  const update = useUpdateUserMutation();
  const isNew = user === null;
  const title = isNew ? 'New User' : `Edit ${user.name}`;

  const onFinish = (values: UserForm) => {
    const name = user?.name ?? values.name.trim();
    const onSuccess = () => {
      message.success(isNew ? `User ${name} created` : `User ${name} saved`);
      navigate('/admin/management/users');
    };
    // A new user is PUT (created); an existing one gets a partial update, so nothing unsent is reset.
    if (isNew) save.mutate({ name, user: toWrite(values, null) }, { onSuccess });
    else update.mutate({ name, patch: toWrite(values, user) }, { onSuccess });
  };

  const expirePassword = () => {
    if (!user) return;
    update.mutate(
      { name: user.name, patch: { passwordExpired: true } },
      { onSuccess: () => message.success(`The password of ${user.name} expired`) },
    );
  };

  return (
    <AdminPage
      title={title}
      trail={TRAIL}
      extra={
        user && (
          <Space wrap>
            {user.locked && (
              <Button
                loading={unlock.isPending}
                onClick={() =>
                  unlock.mutate(user.name, { onSuccess: () => message.success(`${user.name} unlocked`) })
                }
              >
                Unlock
              </Button>
            )}
            <Popconfirm
              title={`Expire the password of ${user.name}?`}
              description="The user must choose a new password at the next sign-in."
              okText="Expire"
              onConfirm={expirePassword}
            >
              <Button disabled={user.passwordExpired}>Expire Password</Button>
            </Popconfirm>
            <Popconfirm
              title={`Delete user ${user.name}?`}
              okText="Delete"
              okButtonProps={{ danger: true }}
              onConfirm={() =>
                remove.mutate(user.name, {
                  onSuccess: () => {
                    message.success(`User ${user.name} deleted`);
                    navigate('/admin/management/users');
                  },
                })
              }
            >
              <Button danger>Delete</Button>
            </Popconfirm>
          </Space>
        )
      }
    >
      <Card variant="borderless">
        {user && (
          <Flex gap="small" wrap style={{ marginBottom: 16 }}>
            <Tag>realm: {user.realm}</Tag>
            {user.locked && <Tag color="red">locked</Tag>}
            {user.passwordExpired && <Tag color="orange">password expired</Tag>}
            {user.mfaEnabled && <Tag color="green">MFA enrolled</Tag>}
            <Tag>
              last sign-in: {user.lastLoggedIn ? new Date(user.lastLoggedIn).toLocaleString() : 'never'}
            </Tag>
          </Flex>
        )}
        {(save.isError || remove.isError || unlock.isError || update.isError) && (
          <ErrorAlert
            error={save.error ?? remove.error ?? unlock.error ?? update.error}
            style={{ marginBottom: 16 }}
          />
        )}
        <Form<UserForm>
          layout="vertical"
          style={{ maxWidth: 560 }}
          initialValues={{
            name: user?.name ?? '',
            email: user?.email ?? '',
            password: '',
            confirm: '',
            admin: user?.admin ?? false,
            disabled: user?.disabled ?? false,
            profileUpdatable: user?.profileUpdatable ?? true,
            groups: user?.groups ?? [],
          }}
          onFinish={onFinish}
          disabled={save.isPending || update.isPending}
        >
          {isNew && (
            <Form.Item
              label="User name"
              name="name"
              required
              rules={[zodRule(mandatoryText), zodRule(userNameSchema)]}
            >
              <Input autoComplete="off" />
            </Form.Item>
          )}
          <Form.Item label="Email address" name="email" rules={[zodRule(emailRule)]}>
            <Input type="email" autoComplete="off" />
          </Form.Item>
          <Form.Item
            label={isNew ? 'Password' : 'New password (leave empty to keep the current one)'}
            name="password"
            required={isNew}
            rules={isNew ? [zodRule(mandatoryText)] : []}
          >
            <Input.Password autoComplete="new-password" />
          </Form.Item>
          <Form.Item
            label="Confirm password"
            name="confirm"
            dependencies={['password']}
            rules={[
              ({ getFieldValue }) => ({
                validator: async (_rule, value: unknown) => {
                  if ((value ?? '') !== (getFieldValue('password') ?? ''))
                    throw new Error(ACCESS_MESSAGES.passwordsDoNotMatch);
                },
              }),
            ]}
          >
            <Input.Password autoComplete="new-password" />
          </Form.Item>
          <Form.Item label="Groups" name="groups">
            <Select
              mode="multiple"
              aria-label="Groups"
              loading={groups.isPending}
              options={(groups.data ?? []).map((g) => ({ value: g.name, label: g.name }))}
              placeholder="No groups"
            />
          </Form.Item>
          <Form.Item name="admin" valuePropName="checked" style={{ marginBottom: 8 }}>
            <Checkbox>Administrator</Checkbox>
          </Form.Item>
          <Form.Item name="profileUpdatable" valuePropName="checked" style={{ marginBottom: 8 }}>
            <Checkbox>Can update profile</Checkbox>
          </Form.Item>
          <Form.Item name="disabled" valuePropName="checked">
            <Checkbox>Disabled (cannot sign in)</Checkbox>
          </Form.Item>
          <Space>
            <Button type="primary" htmlType="submit" loading={save.isPending || update.isPending}>
              {isNew ? 'Create User' : 'Save'}
            </Button>
            <Button onClick={() => navigate('/admin/management/users')}>Cancel</Button>
          </Space>
        </Form>
      </Card>
    </AdminPage>
  );
}
