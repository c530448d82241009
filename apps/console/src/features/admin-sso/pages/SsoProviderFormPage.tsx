import { UploadOutlined } from '@ant-design/icons';
import {
  SSO_MESSAGES,
  SSO_PROVIDER_KEY_PATTERN,
  SSO_PROVIDER_TYPES,
  type SsoProvider,
  type SsoProviderType,
} from '@granary/contracts';
import { useQuery } from '@tanstack/react-query';
import {
  Alert,
  App,
  Button,
  Card,
  Col,
  Form,
  Input,
  InputNumber,
  Radio,
  Row,
  Select,
  Space,
  Switch,
  Typography,
  Upload,
} from 'antd';
import { useState } from 'react';
import { useNavigate, useParams, useSearchParams } from 'react-router';
import { AdminPage, QueryState } from '../../../shared/components/AdminPage.tsx';
import { ErrorAlert } from '../../../shared/components/ErrorAlert.tsx';
import { SsoProviderIcon } from '../../../shared/components/SsoProviderIcon.tsx';
import { TestSignInResult, useTestSignIn } from '../components/TestSignIn.tsx';
import {
  type bodyOf,
  emptyValues,
  type ProviderFormValues,
  secretFieldsOf,
  TYPE_LABELS,
  validate,
  valuesOf,
} from '../providerForm.ts';
import {
  oauthCallbackUrl,
  samlAcsUrl,
  samlMetadataUrl,
  ssoProviderQueryOptions,
  useLdapConnectionTestMutation,
  useSaveSsoProviderMutation,
} from '../queries.ts';
import { SSO_PATH } from './SsoProvidersPage.tsx';

const required = { required: true, message: SSO_MESSAGES.mandatory };
const urlRule = { type: 'url' as const, message: 'Enter an http or https URL' };

/** Issue 20: create or edit a single sign-on provider (`…/sso/new?type=oidc`, `…/sso/edit/{key}`). */
export function SsoProviderFormPage() {
  const { key } = useParams();
  const [params] = useSearchParams();
  const query = useQuery({ ...ssoProviderQueryOptions(key ?? ''), enabled: key !== undefined });
  if (key !== undefined) {
    if (!query.data)
      return (
        <AdminPage title="Edit provider" trail={[['Single sign-on', SSO_PATH]]}>
          <QueryState
            isPending={query.isPending}
            error={query.error}
            onRetry={() => query.refetch()}
            what="the provider"
          />
        </AdminPage>
      );
    return <ProviderForm provider={query.data} />;
  }
  const asked = params.get('type') as SsoProviderType | null;
  const type = asked && SSO_PROVIDER_TYPES.includes(asked) ? asked : 'oidc';
  return <ProviderForm key={type} type={type} />;
}

function ProviderForm({ provider, type: newType }: { provider?: SsoProvider; type?: SsoProviderType }) {
  const type = provider?.type ?? newType ?? 'oidc';
  const editing = provider !== undefined;
  const navigate = useNavigate();
  const { message } = App.useApp();
  const [form] = Form.useForm<ProviderFormValues>();
  const [initial] = useState<ProviderFormValues>(() => (provider ? valuesOf(provider) : emptyValues(type)));
  const save = useSaveSsoProviderMutation();
  const ldapTest = useLdapConnectionTestMutation();
  const test = useTestSignIn();
  // The provider as last stored (a new one once Test sign-in saved it): its secrets' "…Set" flags.
  const [stored, setStored] = useState<SsoProvider | undefined>(provider);
  const savedKey = stored?.key ?? null;
  const secretSet = (field: string) =>
    Boolean(stored && (stored as unknown as Record<string, unknown>)[`${field}Set`]);
  const isDefault = Form.useWatch('isDefault', form);
  const metadataSource = Form.useWatch('metadataSource', form);
  const liveKey: string = Form.useWatch('key', form) ?? initial.key;
  const keyForUrls = liveKey && SSO_PROVIDER_KEY_PATTERN.test(liveKey) ? liveKey : '{key}';

  /** Validates with the shared schema, shows its messages on the fields; the body, or null. */
  const checked = async () => {
    try {
      await form.validateFields();
    } catch {
      return null;
    }
    const values = { ...initial, ...form.getFieldsValue(true), type } as ProviderFormValues;
    const { body, errors } = validate(values);
    if (errors.length > 0) {
      form.setFields(errors);
      return null;
    }
    return { key: values.key.trim(), body };
  };

  const store = (target: { key: string; body: ReturnType<typeof bodyOf> }) =>
    save.mutateAsync(target).then((saved) => {
      setStored(saved);
      // The secrets just typed are stored now: clear them, the field says "stored".
      form.setFields(secretFieldsOf(type).map((field) => ({ name: field, value: '' })));
      return saved;
    });

  const onSave = async () => {
    const target = await checked();
    if (!target) return;
    try {
      await store(target);
    } catch {
      return; // the error shows under the form
    }
    message.success(savedKey ? `${target.body.name} saved` : `${target.body.name} created`);
    navigate(SSO_PATH);
  };

  const onTest = async () => {
    const popup = test.open();
    if (popup.blocked) {
      message.error('The browser blocked the test sign-in popup: allow popups for this site');
      return;
    }
    const target = await checked();
    if (!target) return popup.cancel();
    try {
      // A new provider stays on this page (the popup answers here); its key is fixed from now on.
      await store(target);
      popup.go(target.key);
    } catch {
      popup.cancel();
    }
  };

  const onLdapTest = async () => {
    const target = await checked();
    if (!target) return;
    try {
      await store(target);
    } catch {
      return;
    }
    ldapTest.mutate(target.key);
  };

  const secretInput = (field: string, label: string) => (
    <Form.Item
      label={label}
      name={field}
      extra={
        secretSet(field)
          ? 'Stored — type to replace. Never shown again.'
          : 'Stored encrypted; never shown again once saved.'
      }
    >
      <Input.Password
        autoComplete="new-password"
        placeholder={secretSet(field) ? 'Stored — type to replace' : ''}
      />
    </Form.Item>
  );

  return (
    <AdminPage
      // Once Test sign-in stored a new provider, the page edits it: the title says so.
      title={stored ? `Edit ${stored.name}` : `New ${TYPE_LABELS[type]} provider`}
      trail={[['Single sign-on', SSO_PATH]]}
    >
      <Form<ProviderFormValues>
        form={form}
        layout="vertical"
        initialValues={initial}
        requiredMark={false}
        onFinish={onSave}
        disabled={save.isPending}
      >
        <Card
          title={
            <Space>
              <SsoProviderIcon icon={type} size={20} />
              <h2 className="card-heading">{TYPE_LABELS[type]}</h2>
            </Space>
          }
          style={{ marginBottom: 16 }}
        >
          <Row gutter={16}>
            <Col xs={24} md={12}>
              <Form.Item
                label="Provider key"
                name="key"
                rules={[required, { pattern: SSO_PROVIDER_KEY_PATTERN, message: SSO_MESSAGES.key }]}
                extra="Part of its sign-in and callback addresses; cannot change later."
              >
                <Input disabled={editing || savedKey !== null} autoComplete="off" />
              </Form.Item>
            </Col>
            <Col xs={24} md={12}>
              <Form.Item
                label="Display name"
                name="name"
                rules={[required]}
                extra="The login page says “Sign in with {name}”."
              >
                <Input autoComplete="off" />
              </Form.Item>
            </Col>
          </Row>
          <Space size="large" wrap align="start">
            <Form.Item label="Enabled" name="enabled" valuePropName="checked">
              <Switch />
            </Form.Item>
            <Form.Item label="Create users on first sign-in" name="autoCreateUsers" valuePropName="checked">
              <Switch />
            </Form.Item>
            <Form.Item label="Default provider" name="isDefault" valuePropName="checked">
              <Switch />
            </Form.Item>
            <Form.Item
              label="Auto-redirect the login page"
              name="autoRedirect"
              valuePropName="checked"
              extra={
                isDefault ? 'The password form stays at /ui/login?local=true.' : 'Needs the default provider.'
              }
            >
              <Switch disabled={!isDefault} />
            </Form.Item>
          </Space>
        </Card>

        <Card title={<h2 className="card-heading">Connection</h2>} style={{ marginBottom: 16 }}>
          {(type === 'oidc' || type === 'oauth2') && (
            <Alert
              type="info"
              showIcon
              style={{ marginBottom: 16 }}
              title="Register Granary with the identity provider with this redirect URI"
              description={
                <Typography.Text code copyable>
                  {oauthCallbackUrl(keyForUrls)}
                </Typography.Text>
              }
            />
          )}
          {type === 'oidc' && (
            <>
              <Form.Item
                label="Issuer URL"
                name="issuer"
                rules={[required, urlRule]}
                extra="Its /.well-known/openid-configuration is read (discovery)."
              >
                <Input placeholder="https://idp.example.com/realms/main" />
              </Form.Item>
              <Row gutter={16}>
                <Col xs={24} md={12}>
                  <Form.Item label="Client ID" name="clientId" rules={[required]}>
                    <Input autoComplete="off" />
                  </Form.Item>
                </Col>
                <Col xs={24} md={12}>
                  {secretInput('clientSecret', 'Client secret')}
                </Col>
              </Row>
              <Form.Item label="Use PKCE" name="usePkce" valuePropName="checked">
                <Switch />
              </Form.Item>
            </>
          )}
          {type === 'oauth2' && (
            <>
              <Form.Item label="Authorization URL" name="authorizationUrl" rules={[required, urlRule]}>
                <Input placeholder="https://github.com/login/oauth/authorize" />
              </Form.Item>
              <Form.Item label="Token URL" name="tokenUrl" rules={[required, urlRule]}>
                <Input placeholder="https://github.com/login/oauth/access_token" />
              </Form.Item>
              <Form.Item label="User info URL" name="userInfoUrl" rules={[required, urlRule]}>
                <Input placeholder="https://api.github.com/user" />
              </Form.Item>
              <Row gutter={16}>
                <Col xs={24} md={12}>
                  <Form.Item label="Client ID" name="clientId" rules={[required]}>
                    <Input autoComplete="off" />
                  </Form.Item>
                </Col>
                <Col xs={24} md={12}>
                  {secretInput('clientSecret', 'Client secret')}
                </Col>
              </Row>
            </>
          )}
          {(type === 'oidc' || type === 'oauth2') && (
            <Row gutter={16}>
              <Col xs={24} md={12}>
                <Form.Item label="Scopes" name="scopes">
                  <Select mode="tags" aria-label="Scopes" tokenSeparators={[',', ' ']} open={false} />
                </Form.Item>
              </Col>
              <Col xs={24} md={12}>
                <Form.Item
                  label="Login page icon"
                  name="brand"
                  extra="e.g. GitHub, Google, GitLab, Microsoft; the icon follows its lower-cased name."
                >
                  <Input autoComplete="off" />
                </Form.Item>
              </Col>
            </Row>
          )}
          {type === 'saml' && (
            <>
              <Alert
                type="info"
                showIcon
                style={{ marginBottom: 16 }}
                title="Give the identity provider Granary's service provider metadata"
                description={
                  <Space direction="vertical" size={2}>
                    <span>
                      Metadata URL:{' '}
                      <Typography.Text code copyable aria-label="Service provider metadata URL">
                        {samlMetadataUrl(keyForUrls)}
                      </Typography.Text>
                    </span>
                    <span>
                      Assertion consumer service:{' '}
                      <Typography.Text code copyable>
                        {samlAcsUrl(keyForUrls)}
                      </Typography.Text>
                    </span>
                  </Space>
                }
              />
              <Form.Item label="Identity provider metadata" name="metadataSource">
                <Radio.Group
                  options={[
                    { value: 'url', label: 'From a URL' },
                    { value: 'xml', label: 'Upload or paste the XML' },
                  ]}
                />
              </Form.Item>
              {metadataSource === 'xml' ? (
                <>
                  <Upload
                    accept=".xml,application/xml,text/xml"
                    maxCount={1}
                    showUploadList={false}
                    beforeUpload={(file) => {
                      file.text().then((xml) => form.setFieldValue('idpMetadataXml', xml));
                      return false;
                    }}
                  >
                    <Button icon={<UploadOutlined />} style={{ marginBottom: 8 }}>
                      Upload metadata XML
                    </Button>
                  </Upload>
                  <Form.Item label="Metadata XML" name="idpMetadataXml" rules={[required]}>
                    <Input.TextArea rows={6} spellCheck={false} style={{ fontFamily: 'monospace' }} />
                  </Form.Item>
                </>
              ) : (
                <Form.Item
                  label="Metadata URL"
                  name="idpMetadataUrl"
                  rules={[{ required: true, message: SSO_MESSAGES.samlMetadata }, urlRule]}
                >
                  <Input placeholder="https://idp.example.com/saml/metadata" />
                </Form.Item>
              )}
              <Row gutter={16}>
                <Col xs={24} md={12}>
                  <Form.Item
                    label="Service provider entity ID"
                    name="spEntityId"
                    extra="Empty: the metadata URL above."
                  >
                    <Input autoComplete="off" />
                  </Form.Item>
                </Col>
                <Col xs={24} md={12}>
                  <Form.Item
                    label="SAML logout URL"
                    name="logoutUrl"
                    rules={[urlRule]}
                    extra="Where SAML users go after signing out, so the identity provider ends its session too."
                  >
                    <Input placeholder="https://idp.example.com/slo" />
                  </Form.Item>
                </Col>
              </Row>
              <Space size="large" wrap align="start">
                <Form.Item
                  label="Sign authentication requests"
                  name="signAuthnRequest"
                  valuePropName="checked"
                >
                  <Switch />
                </Form.Item>
                <Form.Item
                  label="Allow identity-provider-initiated sign-in"
                  name="allowIdpInitiated"
                  valuePropName="checked"
                >
                  <Switch />
                </Form.Item>
              </Space>
              <Typography.Paragraph type="secondary">
                Assertions must be signed: an unsigned one is always refused.
              </Typography.Paragraph>
            </>
          )}
          {type === 'ldap' && (
            <>
              <Row gutter={16}>
                <Col xs={24} md={16}>
                  <Form.Item
                    label="LDAP URL"
                    name="url"
                    rules={[required, { pattern: /^ldaps?:\/\/\S+$/i, message: SSO_MESSAGES.ldapUrl }]}
                  >
                    <Input placeholder="ldaps://ldap.example.com:636" />
                  </Form.Item>
                </Col>
                <Col xs={24} md={8}>
                  <Form.Item label="StartTLS" name="startTls" valuePropName="checked">
                    <Switch />
                  </Form.Item>
                </Col>
                <Col xs={24} md={12}>
                  <Form.Item label="Search user DN" name="bindDn" extra="Empty: anonymous search.">
                    <Input autoComplete="off" placeholder="cn=granary,ou=services,dc=example,dc=com" />
                  </Form.Item>
                </Col>
                <Col xs={24} md={12}>
                  {secretInput('bindPassword', 'Search user password')}
                </Col>
                <Col xs={24} md={12}>
                  <Form.Item label="User search base" name="userSearchBase" rules={[required]}>
                    <Input placeholder="ou=people,dc=example,dc=com" />
                  </Form.Item>
                </Col>
                <Col xs={24} md={12}>
                  <Form.Item
                    label="User search filter"
                    name="userSearchFilter"
                    rules={[required]}
                    extra="{0} is the user name (escaped)."
                  >
                    <Input placeholder="(uid={0})" />
                  </Form.Item>
                </Col>
                <Col xs={24} md={12}>
                  <Form.Item label="Group search base" name="groupSearchBase">
                    <Input placeholder="ou=groups,dc=example,dc=com" />
                  </Form.Item>
                </Col>
                <Col xs={24} md={12}>
                  <Form.Item
                    label="Group search filter"
                    name="groupSearchFilter"
                    extra="{0} the user's DN, {1} the user name. Empty: the member attribute below."
                  >
                    <Input placeholder="(member={0})" />
                  </Form.Item>
                </Col>
                <Col xs={24} md={8}>
                  <Form.Item label="Group member attribute" name="groupMemberAttribute">
                    <Input placeholder="memberOf" />
                  </Form.Item>
                </Col>
                <Col xs={24} md={8}>
                  <Form.Item label="Email attribute" name="emailAttribute">
                    <Input placeholder="mail" />
                  </Form.Item>
                </Col>
                <Col xs={24} md={8}>
                  <Form.Item label="Timeout (ms)" name="timeoutMs">
                    <InputNumber min={100} max={120_000} style={{ width: '100%' }} />
                  </Form.Item>
                </Col>
              </Row>
              <Form.Item
                label="CA certificate (PEM)"
                name="tlsCaPem"
                extra="For a directory with a private CA."
              >
                <Input.TextArea rows={3} spellCheck={false} style={{ fontFamily: 'monospace' }} />
              </Form.Item>
            </>
          )}
          {type === 'http' && (
            <>
              <Alert
                type="warning"
                showIcon
                style={{ marginBottom: 16 }}
                title="Believed only from the reverse proxies GRANARY_TRUST_PROXY names"
                description="The proxy must authenticate the user and remove these headers from what clients send."
              />
              <Form.Item label="User name header" name="header" rules={[required]}>
                <Input placeholder="X-Remote-User" />
              </Form.Item>
              <Row gutter={16}>
                <Col xs={24} md={12}>
                  <Form.Item label="Email header" name="emailHeader">
                    <Input placeholder="X-Remote-Email" />
                  </Form.Item>
                </Col>
                <Col xs={24} md={12}>
                  <Form.Item label="Groups header" name="groupsHeader" extra="Comma-separated group names.">
                    <Input placeholder="X-Remote-Groups" />
                  </Form.Item>
                </Col>
              </Row>
            </>
          )}
        </Card>

        {type !== 'http' && (
          <Card title={<h2 className="card-heading">User mapping</h2>} style={{ marginBottom: 16 }}>
            <Row gutter={16}>
              <Col xs={24} md={8}>
                <Form.Item
                  label={type === 'saml' || type === 'ldap' ? 'User name attribute' : 'User name claim'}
                  name={['mapping', 'usernameClaim']}
                  rules={[required]}
                >
                  <Input />
                </Form.Item>
              </Col>
              <Col xs={24} md={8}>
                <Form.Item
                  label={type === 'saml' || type === 'ldap' ? 'Email attribute' : 'Email claim'}
                  name={['mapping', 'emailClaim']}
                  rules={[required]}
                >
                  <Input />
                </Form.Item>
              </Col>
              <Col xs={24} md={8}>
                <Form.Item
                  label={type === 'saml' || type === 'ldap' ? 'Groups attribute' : 'Groups claim'}
                  name={['mapping', 'groupsClaim']}
                  rules={[required]}
                >
                  <Input />
                </Form.Item>
              </Col>
              <Col xs={24} md={12}>
                <Form.Item
                  label="Administrator groups"
                  name={['mapping', 'adminGroups']}
                  extra="Members of one of these groups are Granary administrators."
                >
                  <Select
                    mode="tags"
                    aria-label="Administrator groups"
                    tokenSeparators={[',']}
                    open={false}
                  />
                </Form.Item>
              </Col>
              <Col xs={24} md={12}>
                <Form.Item
                  label="Create missing groups"
                  name={['mapping', 'createMissingGroups']}
                  valuePropName="checked"
                  extra="Off: groups Granary does not have are ignored."
                >
                  <Switch />
                </Form.Item>
              </Col>
            </Row>
          </Card>
        )}

        {(test.result || test.waiting) && (
          <Card title={<h2 className="card-heading">Test sign-in</h2>} style={{ marginBottom: 16 }}>
            {test.result ? (
              <TestSignInResult result={test.result} />
            ) : (
              <Typography.Text role="status">Waiting for the sign-in in the popup window…</Typography.Text>
            )}
          </Card>
        )}
        {ldapTest.data && (
          <Alert
            style={{ marginBottom: 16 }}
            type={ldapTest.data.ok ? 'success' : 'error'}
            showIcon
            title={ldapTest.data.ok ? 'Connected to the directory' : 'Could not connect to the directory'}
            description={ldapTest.data.message ?? ldapTest.data.error}
          />
        )}
        {ldapTest.isError && <ErrorAlert error={ldapTest.error} style={{ marginBottom: 16 }} />}
        {save.isError && <ErrorAlert error={save.error} style={{ marginBottom: 16 }} />}
        <Space wrap>
          <Button type="primary" htmlType="submit" loading={save.isPending}>
            {savedKey ? 'Save' : 'Create'}
          </Button>
          {(type === 'oidc' || type === 'oauth2' || type === 'saml') && (
            <Button onClick={onTest} loading={test.waiting}>
              Test sign-in
            </Button>
          )}
          {type === 'ldap' && (
            <Button onClick={onLdapTest} loading={ldapTest.isPending}>
              Test connection
            </Button>
          )}
          <Button onClick={() => navigate(SSO_PATH)}>Cancel</Button>
        </Space>
        {(type === 'oidc' || type === 'oauth2' || type === 'saml') && (
          <Typography.Paragraph type="secondary" style={{ marginTop: 8 }}>
            Test sign-in stores these settings (a disabled provider stays disabled), runs the sign-in in a
            popup and shows the user and groups Granary maps; nobody is signed in or created by it.
            {savedKey ? '' : ' Leave the provider disabled until the test shows the right user.'}
          </Typography.Paragraph>
        )}
      </Form>
    </AdminPage>
  );
}
