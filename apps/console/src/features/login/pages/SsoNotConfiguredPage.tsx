import { ACCESS_MESSAGES } from '@granary/contracts';
import { Alert, Typography } from 'antd';
import { Link, useParams } from 'react-router';

/**
 * spec 000 §2 sso-login (sso/{ssoLoginType}) and /auth-provider/{type} when no single sign-on provider is configured
 * at all (issue 20: `SsoLoginPage` goes to the provider, or lists the ones there are): the page says so and leads back
 * to sign in.
 */
export function SsoNotConfiguredPage() {
  const { type = '' } = useParams();
  const name = type.trim() === '' ? 'this provider' : type;
  return (
    <>
      <title>Single sign-on - Granary</title>
      <h1>Single sign-on</h1>
      <Alert
        type="info"
        showIcon
        title={ACCESS_MESSAGES.ssoNotConfigured(name)}
        style={{ marginBottom: 16 }}
      />
      <Typography.Paragraph style={{ marginBottom: 0 }}>
        <Link to="/login">Sign in with a user name and password</Link>
      </Typography.Paragraph>
    </>
  );
}
