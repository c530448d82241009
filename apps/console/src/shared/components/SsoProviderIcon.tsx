import {
  ApartmentOutlined,
  GithubOutlined,
  GitlabOutlined,
  GlobalOutlined,
  GoogleOutlined,
  IdcardOutlined,
  LoginOutlined,
  SafetyCertificateOutlined,
  WindowsOutlined,
} from '@ant-design/icons';
import type { ReactNode } from 'react';

/**
 * spec 000 §3 login state: each OAuth provider's icon is derived from its lower-cased type. The icon names the
 * console draws; an unknown one gets a neutral sign-in arrow. Used by the login page and the admin provider list.
 */
const ICONS: Record<string, ReactNode> = {
  oidc: <IdcardOutlined />,
  openid: <IdcardOutlined />,
  oauth2: <LoginOutlined />,
  github: <GithubOutlined />,
  gitlab: <GitlabOutlined />,
  google: <GoogleOutlined />,
  microsoft: <WindowsOutlined />,
  azure: <WindowsOutlined />,
  azuread: <WindowsOutlined />,
  saml: <SafetyCertificateOutlined />,
  ldap: <ApartmentOutlined />,
  http: <GlobalOutlined />,
};

/** The icon name of a provider type (spec 000 §3: the lower-cased type). */
export const ssoIconName = (type: string): string => type.trim().toLowerCase();

export function SsoProviderIcon({ icon, size }: { icon: string; size?: number }) {
  const name = ssoIconName(icon);
  return (
    <span
      aria-hidden
      className={`sso-icon sso-icon-${name}`}
      data-icon={name}
      style={size ? { fontSize: size, lineHeight: 1 } : undefined}
    >
      {ICONS[name] ?? <LoginOutlined />}
    </span>
  );
}
