import { ACCESS_MESSAGES, type UserData } from '@granary/contracts';
import { useQuery } from '@tanstack/react-query';
import {
  Alert,
  App,
  Button,
  Card,
  Descriptions,
  Flex,
  Form,
  Input,
  Popconfirm,
  QRCode,
  Skeleton,
  Space,
  Typography,
} from 'antd';
import { useState } from 'react';
import { z } from 'zod';
import '../../../shared/styles/accessibleForms.css';
import { mandatoryText } from '../../../shared/forms/rules.ts';
import { zodRule } from '../../../shared/forms/zodRule.ts';
import { currentUserQueryOptions } from '../../../shared/session/queries.ts';
import {
  apiKeyInfoQueryOptions,
  profileMfaEnrollQueryOptions,
  useChangeOwnPasswordMutation,
  useConfirmMfaMutation,
  useFetchApiKeyMutation,
  useIdentityTokenMutation,
  useResetMfaMutation,
  useRevokeApiKeyMutation,
  useUpdateEmailMutation,
} from '../queries.ts';

/** spec 000 §2 Edit Profile (/admin/artifactory/user_profile): e-mail, password, identity token, MFA. */
export function ProfilePage() {
  const user = useQuery(currentUserQueryOptions());
  return (
    <Flex vertical gap="large">
      <Typography.Title level={1} style={{ margin: 0, fontSize: 26 }}>
        Edit Profile
      </Typography.Title>
      {user.data ? <Profile user={user.data} /> : <Skeleton active />}
    </Flex>
  );
}

function Profile({ user }: { user: UserData }) {
  return (
    <>
      <Card title={<h2 className="card-heading">Personal information</h2>} variant="borderless">
        <Descriptions
          column={1}
          size="small"
          items={[
            { key: 'name', label: 'User name', children: user.name },
            { key: 'realm', label: 'Realm', children: user.realm },
            { key: 'groups', label: 'Groups', children: user.groups.join(', ') || 'None' },
          ]}
          style={{ marginBottom: 16 }}
        />
        {user.profileUpdatable && user.realm === 'internal' ? (
          <EmailForm user={user} />
        ) : (
          <Typography.Text type="secondary">
            Email address: {user.email ?? 'none'}. An administrator changes it for you.
          </Typography.Text>
        )}
      </Card>
      {user.realm === 'internal' && user.profileUpdatable && <PasswordCard user={user} />}
      <IdentityTokenCard user={user} />
      {user.realm === 'internal' && <ApiKeyCard user={user} />}
      <MfaCard user={user} />
    </>
  );
}

const emailRule = z.union([z.literal(''), z.email('Enter a valid email address')]);

/** spec 000 §7 `POST ui/userProfile`: the user's own email address, with the current password. */
function EmailForm({ user }: { user: UserData }) {
  const update = useUpdateEmailMutation();
  const { message } = App.useApp();
  const [form] = Form.useForm<{ email: string; password: string }>();
  return (
    <Form
      form={form}
      layout="vertical"
      style={{ maxWidth: 480 }}
      initialValues={{ email: user.email ?? '', password: '' }}
      onFinish={({ email, password }) =>
        update.mutate(
          { password, email: email.trim() === '' ? null : email.trim() },
          {
            onSuccess: () => {
              message.success('Email address saved');
              form.setFieldValue('password', '');
            },
          },
        )
      }
      disabled={update.isPending}
    >
      {update.isError && (
        <Alert type="error" showIcon title={update.error.message} style={{ marginBottom: 16 }} />
      )}
      <Form.Item label="Email address" name="email" rules={[zodRule(emailRule)]}>
        <Input type="email" autoComplete="email" />
      </Form.Item>
      <Form.Item
        label="Current password"
        name="password"
        extra="Needed to save a new email address."
        rules={[zodRule(mandatoryText)]}
      >
        <Input.Password autoComplete="current-password" />
      </Form.Item>
      <Button htmlType="submit" loading={update.isPending}>
        Save email
      </Button>
    </Form>
  );
}

function PasswordCard({ user }: { user: UserData }) {
  const change = useChangeOwnPasswordMutation();
  const { message } = App.useApp();
  const [form] = Form.useForm<{ oldPassword: string; password: string; confirm: string }>();
  return (
    <Card title={<h2 className="card-heading">Change password</h2>} variant="borderless">
      {change.isError && (
        <Alert
          type="error"
          showIcon
          title={ACCESS_MESSAGES.changePasswordFailure}
          description={change.error.message}
          style={{ marginBottom: 16 }}
        />
      )}
      <Form
        form={form}
        layout="vertical"
        style={{ maxWidth: 480 }}
        disabled={change.isPending}
        onFinish={(v) =>
          change.mutate(
            {
              userName: user.name,
              oldPassword: v.oldPassword,
              newPassword1: v.password,
              newPassword2: v.confirm,
            },
            {
              onSuccess: () => {
                message.success('Password changed');
                form.resetFields();
              },
            },
          )
        }
      >
        <Form.Item label="Current password" name="oldPassword" rules={[zodRule(mandatoryText)]}>
          <Input.Password autoComplete="current-password" />
        </Form.Item>
        <Form.Item label="New password" name="password" rules={[zodRule(mandatoryText)]}>
          <Input.Password autoComplete="new-password" />
        </Form.Item>
        <Form.Item
          label="Confirm new password"
          name="confirm"
          dependencies={['password']}
          rules={[
            zodRule(mandatoryText),
            ({ getFieldValue }) => ({
              validator: async (_r, value: unknown) => {
                if (value && value !== getFieldValue('password'))
                  throw new Error(ACCESS_MESSAGES.passwordsDoNotMatch);
              },
            }),
          ]}
        >
          <Input.Password autoComplete="new-password" />
        </Form.Item>
        <Button htmlType="submit" loading={change.isPending}>
          Change password
        </Button>
      </Form>
    </Card>
  );
}

async function copyToClipboard(text: string): Promise<boolean> {
  try {
    await navigator.clipboard.writeText(text);
    return true;
  } catch {
    return false;
  }
}

/** spec 000 §8: success "Copied to clipboard"; failure "Failed to generate Identity token". */
function IdentityTokenCard({ user }: { user: UserData }) {
  const generate = useIdentityTokenMutation();
  const { message } = App.useApp();
  const [description, setDescription] = useState('');
  const [otp, setOtp] = useState('');
  const onGenerate = () =>
    generate.mutate(
      { name: user.name, description: description.trim() || 'Generated in Edit Profile', otp },
      {
        onSuccess: async (token) => {
          if (await copyToClipboard(token.reference_token))
            message.success(ACCESS_MESSAGES.identityTokenCopied);
        },
        onError: () => message.error(ACCESS_MESSAGES.identityTokenFailure),
      },
    );
  return (
    <Card title={<h2 className="card-heading">Identity token</h2>} variant="borderless">
      <Typography.Paragraph type="secondary">
        An identity token works as your password for package clients (npm, pip, docker…). It is shown once.
      </Typography.Paragraph>
      <Space.Compact style={{ maxWidth: 480, width: '100%' }}>
        <Input
          aria-label="Token description"
          placeholder="Description (optional)"
          value={description}
          onChange={(e) => setDescription(e.target.value)}
        />
        {user.mfaEnrolled && (
          <Input
            aria-label="One-time code for the token"
            placeholder="One-time code"
            autoComplete="one-time-code"
            inputMode="numeric"
            maxLength={10}
            value={otp}
            onChange={(e) => setOtp(e.target.value)}
            style={{ maxWidth: 150 }}
          />
        )}
        <Button type="primary" onClick={onGenerate} loading={generate.isPending}>
          Generate and copy
        </Button>
      </Space.Compact>
      {generate.isError && (
        <Alert
          type="error"
          showIcon
          title={ACCESS_MESSAGES.identityTokenFailure}
          description={user.mfaEnrolled ? generate.error.message : undefined}
          style={{ marginTop: 16 }}
        />
      )}
      {generate.data && (
        <Alert
          type="success"
          showIcon
          style={{ marginTop: 16 }}
          title="Your new identity token"
          description={
            <Typography.Text
              code
              copyable={{ text: generate.data.reference_token }}
              style={{ wordBreak: 'break-all' }}
            >
              {generate.data.reference_token}
            </Typography.Text>
          }
        />
      )}
    </Card>
  );
}

function MfaCard({ user }: { user: UserData }) {
  const [mode, setMode] = useState<'idle' | 'enrolling' | 'resetting'>('idle');
  return (
    <Card title={<h2 className="card-heading">Two-step verification</h2>} variant="borderless">
      <Typography.Paragraph type="secondary">
        Protect your sign-in with a one-time code from an authenticator app.
      </Typography.Paragraph>
      {mode === 'enrolling' && <MfaEnrolment name={user.name} onDone={() => setMode('idle')} />}
      {mode === 'resetting' && <MfaReset onDone={() => setMode('idle')} />}
      {mode === 'idle' && (
        <Space wrap>
          {/* An authenticator is replaced by removing it first (with a code from it): issue 12 §2. */}
          {user.mfaEnrolled !== true && (
            <Button onClick={() => setMode('enrolling')}>Set up authenticator</Button>
          )}
          {user.realm === 'internal' && user.mfaEnrolled !== false && (
            <Button danger onClick={() => setMode('resetting')}>
              Reset authenticator
            </Button>
          )}
        </Space>
      )}
    </Card>
  );
}

/** Removes the user's own authenticator with the password and a code from it (`POST auth/mfa/reset`). */
function MfaReset({ onDone }: { onDone: () => void }) {
  const reset = useResetMfaMutation();
  const { message } = App.useApp();
  return (
    <Form
      layout="vertical"
      style={{ maxWidth: 480 }}
      disabled={reset.isPending}
      onFinish={({ password, otp }: { password: string; otp: string }) =>
        reset.mutate(
          { password, otp },
          {
            onSuccess: () => {
              message.success('Authenticator removed');
              onDone();
            },
          },
        )
      }
    >
      <Typography.Paragraph>
        Sign-in will no longer ask for a one-time code, unless an administrator requires it.
      </Typography.Paragraph>
      {reset.isError && (
        <Alert type="error" showIcon title={reset.error.message} style={{ marginBottom: 16 }} />
      )}
      <Form.Item label="Current password" name="password" rules={[zodRule(mandatoryText)]}>
        <Input.Password autoComplete="current-password" />
      </Form.Item>
      <Form.Item label="Code from the authenticator" name="otp" rules={[zodRule(mandatoryText)]}>
        <Input autoComplete="one-time-code" inputMode="numeric" maxLength={10} />
      </Form.Item>
      <Space>
        <Button danger htmlType="submit" loading={reset.isPending}>
          Remove authenticator
        </Button>
        <Button type="link" onClick={onDone}>
          Cancel
        </Button>
      </Space>
    </Form>
  );
}

/**
 * spec 001 §7 API key: `GET /ui/userApiKey` says whether one exists; a new one comes from `GET api key/{username}`
 * with the password in the re-authentication header, and is shown once. An API key is a long-lived personal
 * token; a new one replaces the old one.
 */
function ApiKeyCard({ user }: { user: UserData }) {
  const info = useQuery(apiKeyInfoQueryOptions());
  const fetchKey = useFetchApiKeyMutation();
  const revoke = useRevokeApiKeyMutation();
  const { message } = App.useApp();
  const [form] = Form.useForm<{ password: string; otp?: string }>();
  const exists = info.data?.exists === true;
  return (
    <Card title={<h2 className="card-heading">API key</h2>} variant="borderless">
      <Typography.Paragraph type="secondary">
        {exists
          ? `You have an API key, created ${new Date(info.data!.createdAt!).toLocaleString()}. It is shown only when created; a new one replaces it.`
          : 'An API key is a long-lived personal token for scripts and clients. It is shown once.'}
      </Typography.Paragraph>
      {fetchKey.isError && (
        <Alert type="error" showIcon title={fetchKey.error.message} style={{ marginBottom: 16 }} />
      )}
      <Form
        form={form}
        layout="inline"
        disabled={fetchKey.isPending}
        onFinish={({ password, otp }) =>
          fetchKey.mutate({ name: user.name, password, otp }, { onSuccess: () => form.resetFields() })
        }
      >
        <Form.Item label="Current password" name="password" rules={[zodRule(mandatoryText)]}>
          <Input.Password autoComplete="current-password" />
        </Form.Item>
        {user.mfaEnrolled && (
          <Form.Item label="One-time code" name="otp" rules={[zodRule(mandatoryText)]}>
            <Input autoComplete="one-time-code" inputMode="numeric" maxLength={10} />
          </Form.Item>
        )}
        <Button type="primary" htmlType="submit" loading={fetchKey.isPending}>
          {exists ? 'Create a new API key' : 'Create API key'}
        </Button>
        {exists && (
          <Popconfirm
            title="Revoke your API key?"
            description="Clients using it stop working at once."
            okText="Revoke"
            okButtonProps={{ danger: true }}
            onConfirm={() =>
              revoke.mutate(undefined, { onSuccess: () => message.success('API key revoked') })
            }
          >
            <Button danger loading={revoke.isPending}>
              Revoke
            </Button>
          </Popconfirm>
        )}
      </Form>
      {fetchKey.data && (
        <Alert
          type="success"
          showIcon
          style={{ marginTop: 16 }}
          title="Your new API key"
          description={
            <Typography.Text
              code
              copyable={{ text: fetchKey.data.apiKey }}
              style={{ wordBreak: 'break-all' }}
            >
              {fetchKey.data.apiKey}
            </Typography.Text>
          }
        />
      )}
    </Card>
  );
}

function MfaEnrolment({ name, onDone }: { name: string; onDone: () => void }) {
  const enroll = useQuery(profileMfaEnrollQueryOptions(name));
  const confirm = useConfirmMfaMutation();
  const { message } = App.useApp();
  return (
    <Flex vertical gap="middle" style={{ maxWidth: 480 }}>
      {enroll.isPending && <Skeleton.Node active style={{ width: 180, height: 180 }} />}
      {enroll.isError && <Alert type="error" showIcon title={enroll.error.message} />}
      {enroll.data && (
        <>
          <QRCode value={enroll.data.otpauthUri} size={180} aria-label="Enrolment QR code" />
          <Typography.Text>
            Key:{' '}
            <Typography.Text code copyable>
              {enroll.data.secret}
            </Typography.Text>
          </Typography.Text>
        </>
      )}
      {confirm.isError && <Alert type="error" showIcon title={confirm.error.message} />}
      <Form
        layout="inline"
        onFinish={({ otp }: { otp: string }) =>
          confirm.mutate(
            { name, otp: otp.trim() },
            {
              onSuccess: () => {
                message.success('Authenticator set up');
                onDone();
              },
            },
          )
        }
      >
        <Form.Item label="Verification code" name="otp" rules={[zodRule(mandatoryText)]}>
          <Input autoComplete="one-time-code" inputMode="numeric" maxLength={10} />
        </Form.Item>
        <Button type="primary" htmlType="submit" loading={confirm.isPending}>
          Confirm
        </Button>
        <Button type="link" onClick={onDone}>
          Cancel
        </Button>
      </Form>
    </Flex>
  );
}
