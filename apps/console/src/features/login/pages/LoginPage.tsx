import { useQuery } from '@tanstack/react-query';
import { Alert, Button, Checkbox, Divider, Flex, Form, Typography } from 'antd';
// The two inputs the form uses, not antd's whole Input (with TextArea, Search and OTP): the login route's
// JavaScript budget (under 300 KB gzip).
import Input from 'antd/es/input/Input';
import Password from 'antd/es/input/Password';
import { lazy, Suspense, useEffect, useRef } from 'react';
import { Link, Navigate, useLocation, useNavigate, useSearchParams } from 'react-router';
import { mandatoryText } from '../../../shared/forms/rules.ts';
import { zodRule } from '../../../shared/forms/zodRule.ts';
import { destinationForSignedInUser } from '../../../shared/session/pathAfterLogin.ts';
import { currentUserQueryOptions } from '../../../shared/session/queries.ts';
import { PageLoading } from '../../../shared/session/RequireSignIn.tsx';
import { useAfterLogin } from '../hooks/useAfterLogin.ts';
import { asksForLocalForm, autoRedirectTarget, samlLogoutTarget, withRedirectTo } from '../loginGuards.ts';
import {
  fetchSamlLogoutUrl,
  isCredentialsExpired,
  loginConfigQueryOptions,
  loginRelatedDataQueryOptions,
  ssoLoginStateQueryOptions,
  useLoginMutation,
  useLogoutMutation,
} from '../queries.ts';

/**
 * The provider icons load only when there are providers to show: the login route keeps to its JavaScript
 * budget (under 300 KB gzip) on the many instances without single sign-on.
 */
const LazySsoProviderIcon = lazy(() =>
  import('../../../shared/components/SsoProviderIcon.tsx').then((m) => ({ default: m.SsoProviderIcon })),
);
function ProviderIcon({ icon }: { icon: string }) {
  return (
    <Suspense fallback={null}>
      <LazySsoProviderIcon icon={icon} />
    </Suspense>
  );
}

interface LoginForm {
  user: string;
  password: string;
  rememberMe: boolean;
}

/** spec 000 §2 login: username and password, remember-me (on by default), SSO and OAuth provider links. */
export function LoginPage() {
  const [params] = useSearchParams();
  const location = useLocation();
  const logoutRequested = params.has('logout');
  if (logoutRequested) return <SignOut />;
  const signedOut = (location.state as { signedOut?: boolean } | null)?.signedOut === true;
  return (
    <SignIn
      redirectTo={params.get('redirectTo')}
      ssoError={params.get('ssoError')}
      signedOut={signedOut}
      noAutoRedirect={asksForLocalForm(params)}
    />
  );
}

/**
 * spec 000 §4 route guard: entering login with the logout flag clears the session, then shows the form; a
 * SAML user is sent on to the SAML logout URL instead.
 */
function SignOut() {
  const logout = useLogoutMutation();
  const navigate = useNavigate();
  const current = useQuery(currentUserQueryOptions());
  const config = useQuery(loginConfigQueryOptions());
  const sso = useQuery(ssoLoginStateQueryOptions());
  const started = useRef(false);
  const ready = !current.isPending && !config.isPending && !sso.isPending;
  useEffect(() => {
    if (!ready || started.current) return;
    started.current = true;
    const signOut = async () => {
      // Read before signing out: the sign-out forgets every query, and the server knows the SAML session only
      // while it lasts.
      const sessionLogoutUrl = current.data?.realm === 'saml' ? await fetchSamlLogoutUrl() : null;
      const samlLogout = samlLogoutTarget(current.data, config.data, { sessionLogoutUrl, state: sso.data });
      logout.mutate(undefined, {
        onSettled: () => {
          if (samlLogout) window.location.assign(samlLogout);
          else navigate('/login', { replace: true, state: { signedOut: true } });
        },
      });
    };
    void signOut();
  }, [ready, current.data, config.data, sso.data, logout, navigate]);
  return <PageLoading label="Signing out…" />;
}

/** spec 000 §4 route guard: auto-redirect SSO sends the visitor to the SSO provider (a full page load). */
function SsoRedirect({ to }: { to: string }) {
  useEffect(() => {
    window.location.assign(to);
  }, [to]);
  return <PageLoading label="Redirecting to single sign-on…" />;
}

function SignIn({
  redirectTo,
  ssoError,
  signedOut,
  noAutoRedirect,
}: {
  redirectTo: string | null;
  /** Issue 20: a refused single sign-on comes back here with the reason (shown, and no auto-redirect loop). */
  ssoError: string | null;
  signedOut: boolean;
  noAutoRedirect: boolean;
}) {
  const navigate = useNavigate();
  const current = useQuery(currentUserQueryOptions());
  const related = useQuery(loginRelatedDataQueryOptions());
  const config = useQuery(loginConfigQueryOptions());
  const ssoState = useQuery(ssoLoginStateQueryOptions());
  const login = useLoginMutation();
  const afterLogin = useAfterLogin();
  const [form] = Form.useForm<LoginForm>();

  // spec 000 §4: a signed-in user hitting login goes to their last route.
  if (current.data && !login.isPending && !login.isSuccess) {
    const to = destinationForSignedInUser({ redirectTo, user: current.data.name, admin: current.data.admin });
    return <Navigate to={to} replace />;
  }
  const sso = autoRedirectTarget(
    config.data,
    { signedOut, noAutoRedirect: noAutoRedirect || ssoError !== null },
    ssoState.data,
  );
  if (current.data === null && sso) return <SsoRedirect to={withRedirectTo(sso, redirectTo)} />;
  // spec 000 §4: until the auto-redirect state is known, the form is not flashed at a visitor about to leave.
  if (ssoState.isPending && !signedOut && !noAutoRedirect && ssoError === null) return <PageLoading />;

  const view = related.data;
  const onFinish = (values: LoginForm) => {
    const rememberMe = view?.canRememberMe === false ? false : values.rememberMe;
    login.mutate(
      { user: values.user.trim(), password: values.password, rememberMe },
      {
        onSuccess: (user) => afterLogin(user, { userName: values.user.trim(), redirectTo }),
        onError: (error) => {
          // spec 000 §8: credentials expired → change-password with the username.
          if (isCredentialsExpired(error)) {
            navigate(`/login/change-password?${new URLSearchParams({ userName: values.user.trim() })}`, {
              state: { redirectTo },
            });
          }
        },
      },
    );
  };

  // spec 000 §3 login state: the OAuth providers (the server's SSO state, plus any the login-related data names),
  // the SAML link, and the general SSO link when it is none of those.
  const providers = [...(ssoState.data?.oauthProviders ?? []), ...(view?.oauthProviders ?? [])].filter(
    (provider, index, all) => all.findIndex((p) => p.url === provider.url) === index,
  );
  const samlLink = ssoState.data?.ssoProviderLinkSAML ?? null;
  const generalLink =
    view?.ssoProviderLink || ssoState.data?.ssoProviderLink || config.data?.ssoLoginUrl || null;
  const ssoLink =
    generalLink && generalLink !== samlLink && !providers.some((p) => p.url === generalLink)
      ? generalLink
      : null;
  return (
    <>
      <title>Sign in - Granary</title>
      <h1>Sign in to Granary</h1>
      {ssoError && !login.isError && (
        <Alert type="error" showIcon title={ssoError} style={{ marginBottom: 16 }} />
      )}
      {login.isError && !isCredentialsExpired(login.error) && (
        <Alert type="error" showIcon title={login.error.message} style={{ marginBottom: 16 }} />
      )}
      <Form<LoginForm>
        form={form}
        layout="vertical"
        requiredMark={false}
        initialValues={{ user: '', password: '', rememberMe: true }}
        onFinish={onFinish}
        disabled={login.isPending}
      >
        <Form.Item label="Username" name="user" rules={[zodRule(mandatoryText)]}>
          <Input autoComplete="username" autoFocus />
        </Form.Item>
        <Form.Item label="Password" name="password" rules={[zodRule(mandatoryText)]}>
          <Password autoComplete="current-password" />
        </Form.Item>
        <Flex justify="space-between" align="center" style={{ marginBottom: 16 }}>
          {view?.canRememberMe !== false ? (
            <Form.Item name="rememberMe" valuePropName="checked" noStyle>
              <Checkbox>Remember me</Checkbox>
            </Form.Item>
          ) : (
            <span />
          )}
          {view?.forgotPassword && <Link to="/login/forgot-password">Forgot password?</Link>}
        </Flex>
        <Button type="primary" htmlType="submit" block size="large" loading={login.isPending}>
          Sign in
        </Button>
      </Form>
      {view?.canRegister && (
        <Typography.Paragraph style={{ marginTop: 16, marginBottom: 0, textAlign: 'center' }}>
          New here? <Link to="/login/registration">Create an account</Link>
        </Typography.Paragraph>
      )}
      {(ssoLink || samlLink || providers.length > 0) && (
        <>
          <Divider plain>
            <Typography.Text type="secondary">or</Typography.Text>
          </Divider>
          <Flex vertical gap="small">
            {ssoLink && (
              <Button block href={withRedirectTo(ssoLink, redirectTo)}>
                Sign in with SSO
              </Button>
            )}
            {samlLink && (
              <Button
                block
                href={withRedirectTo(samlLink, redirectTo)}
                icon={<ProviderIcon icon="saml" />}
                className="sso-provider sso-saml"
              >
                Sign in with SAML SSO
              </Button>
            )}
            {providers.map((provider) => (
              <Button
                key={`${provider.type}-${provider.name}-${provider.url}`}
                block
                href={withRedirectTo(provider.url, redirectTo)}
                icon={<ProviderIcon icon={provider.icon ?? provider.type} />}
                className={`oauth-provider oauth-${provider.type.toLowerCase()}`}
              >
                Sign in with {provider.name}
              </Button>
            ))}
          </Flex>
        </>
      )}
    </>
  );
}
