import {
  DATE_FORMATS,
  type GeneralConfigUpdate,
  LOGO_CONTENT_TYPES,
  LOGO_MAX_BYTES,
} from '@granary/contracts';
import { useQuery } from '@tanstack/react-query';
import { App, Button, Card, Flex, Form, Input, Popconfirm, Select, Switch, Typography, Upload } from 'antd';
import { ErrorAlert } from '../../../shared/components/ErrorAlert.tsx';
import {
  generalConfigQueryOptions,
  loginConfigQueryOptions,
  useRemoveLogo,
  useUpdateGeneralConfig,
  useUpdateLoginConfig,
  useUploadLogo,
} from '../queries.ts';

interface FormValues {
  serverName: string;
  dateFormat: string;
  footerText: string;
  footerLogoUrl: string;
  helpLinksEnabled: boolean;
}

/** spec 000 §2 /admin/configuration/general: server name, date format, footer, help links and the custom logo. */
export function GeneralConfigPage() {
  const config = useQuery(generalConfigQueryOptions());
  const update = useUpdateGeneralConfig();
  const upload = useUploadLogo();
  const removeLogo = useRemoveLogo();
  const { message } = App.useApp();
  if (config.isPending) return null;
  if (config.isError) return <ErrorAlert title="Could not load the configuration" error={config.error} />;
  const c = config.data;
  const onFinish = (values: FormValues) => {
    const body: GeneralConfigUpdate = {
      serverName: values.serverName,
      dateFormat: values.dateFormat as GeneralConfigUpdate['dateFormat'],
      footerText: values.footerText,
      footerLogoUrl: values.footerLogoUrl.trim() === '' ? null : values.footerLogoUrl.trim(),
      helpLinksEnabled: values.helpLinksEnabled,
    };
    update.mutate(body, { onSuccess: () => message.success('General configuration saved') });
  };
  return (
    <Flex vertical gap="large">
      <Typography.Title level={1}>General configuration</Typography.Title>
      <Card title={<h2 className="card-heading">Settings</h2>}>
        <Form<FormValues>
          layout="vertical"
          initialValues={{
            serverName: c.serverName,
            dateFormat: c.dateFormat,
            footerText: c.footer.text,
            footerLogoUrl: c.footer.logoUrl ?? '',
            helpLinksEnabled: c.helpLinksEnabled,
          }}
          onFinish={onFinish}
          style={{ maxWidth: 560 }}
        >
          <Form.Item
            label="Server name"
            name="serverName"
            rules={[{ required: true, message: 'Server name is required' }, { max: 100 }]}
          >
            <Input />
          </Form.Item>
          <Form.Item label="Date format" name="dateFormat">
            <Select options={DATE_FORMATS.map((f) => ({ value: f, label: f }))} />
          </Form.Item>
          <Form.Item label="Footer text" name="footerText" rules={[{ max: 500 }]}>
            <Input />
          </Form.Item>
          <Form.Item
            label="Footer logo URL"
            name="footerLogoUrl"
            rules={[{ type: 'url', message: 'Enter an http or https URL' }]}
          >
            <Input placeholder="https://example.com/logo.png" />
          </Form.Item>
          <Form.Item label="Help links" name="helpLinksEnabled" valuePropName="checked">
            <Switch />
          </Form.Item>
          {update.isError && <ErrorAlert error={update.error} style={{ marginBottom: 16 }} />}
          <Button type="primary" htmlType="submit" loading={update.isPending}>
            Save
          </Button>
        </Form>
      </Card>
      <SingleSignOnCard />
      <Card title={<h2 className="card-heading">Custom logo</h2>}>
        <Flex vertical gap="middle" align="start">
          {c.logoUrl ? (
            <img src={c.logoUrl} alt="Current custom logo" style={{ maxHeight: 48 }} />
          ) : (
            <Typography.Text type="secondary">
              No custom logo: the default logo for the licence is shown.
            </Typography.Text>
          )}
          <Flex gap="small">
            <Upload
              accept={LOGO_CONTENT_TYPES.join(',')}
              showUploadList={false}
              beforeUpload={(file) => {
                if (!(LOGO_CONTENT_TYPES as readonly string[]).includes(file.type)) {
                  message.error('The logo must be a PNG, JPEG, GIF or WebP image');
                } else if (file.size > LOGO_MAX_BYTES) {
                  message.error('The logo must be at most 1 MB');
                } else {
                  upload.mutate(file, { onSuccess: () => message.success('Logo uploaded') });
                }
                return false;
              }}
            >
              <Button loading={upload.isPending}>Upload logo</Button>
            </Upload>
            {c.logoUrl && (
              <Popconfirm title="Remove the custom logo?" onConfirm={() => removeLogo.mutate()}>
                <Button danger>Remove logo</Button>
              </Popconfirm>
            )}
          </Flex>
          {upload.isError && <ErrorAlert error={upload.error} />}
        </Flex>
      </Card>
    </Flex>
  );
}

interface SsoValues {
  ssoLoginUrl: string;
  autoRedirectLogin: boolean;
  samlLogoutUrl: string;
}

const orNull = (value: string) => (value.trim() === '' ? null : value.trim());

/** Sign-in routing the login page follows (spec 000 §4 route guard: auto-redirect SSO, SAML logout URL). */
function SingleSignOnCard() {
  const config = useQuery(loginConfigQueryOptions());
  const update = useUpdateLoginConfig();
  const { message } = App.useApp();
  if (config.isPending) return null;
  if (config.isError) return <ErrorAlert title="Could not load the sign-in settings" error={config.error} />;
  const c = config.data;
  return (
    <Card title={<h2 className="card-heading">Single sign-on</h2>}>
      <Form<SsoValues>
        layout="vertical"
        initialValues={{
          ssoLoginUrl: c.ssoLoginUrl ?? '',
          autoRedirectLogin: c.autoRedirectLogin,
          samlLogoutUrl: c.samlLogoutUrl ?? '',
        }}
        onFinish={(values) =>
          update.mutate(
            {
              ssoLoginUrl: orNull(values.ssoLoginUrl),
              autoRedirectLogin: values.autoRedirectLogin,
              samlLogoutUrl: orNull(values.samlLogoutUrl),
            },
            { onSuccess: () => message.success('Sign-in settings saved') },
          )
        }
        style={{ maxWidth: 560 }}
      >
        <Form.Item
          label="SSO sign-in URL"
          name="ssoLoginUrl"
          extra="The login page offers “Sign in with SSO” to this address."
          rules={[{ type: 'url', message: 'Enter an http or https URL' }]}
        >
          <Input placeholder="https://idp.example.com/sso/start" />
        </Form.Item>
        <Form.Item
          label="Send visitors straight to SSO"
          name="autoRedirectLogin"
          valuePropName="checked"
          extra="Needs the SSO sign-in URL. The local form stays reachable at /ui/login?noAutoRedirect."
        >
          <Switch />
        </Form.Item>
        <Form.Item
          label="SAML logout URL"
          name="samlLogoutUrl"
          extra="Where SAML users go after signing out, so the identity provider ends its session too."
          rules={[{ type: 'url', message: 'Enter an http or https URL' }]}
        >
          <Input placeholder="https://idp.example.com/slo" />
        </Form.Item>
        {update.isError && <ErrorAlert error={update.error} style={{ marginBottom: 16 }} />}
        <Button type="primary" htmlType="submit" loading={update.isPending}>
          Save sign-in settings
        </Button>
      </Form>
    </Card>
  );
}
