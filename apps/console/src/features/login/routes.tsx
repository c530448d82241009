import { Navigate, type RouteObject } from 'react-router';
import { lazyPage } from '../../shared/components/microfrontend.ts';
import { RouteErrorBoundary } from '../../shared/components/RouteErrorBoundary.tsx';
import { LoginLayout } from './components/LoginLayout.tsx';

const LoginPage = lazyPage(() => import('./pages/LoginPage.tsx'), 'LoginPage');
const OtpLoginPage = lazyPage(() => import('./pages/OtpLoginPage.tsx'), 'OtpLoginPage');
const MfaEnrollPage = lazyPage(() => import('./pages/MfaEnrollPage.tsx'), 'MfaEnrollPage');
const ForgotPasswordPage = lazyPage(() => import('./pages/ForgotPasswordPage.tsx'), 'ForgotPasswordPage');
const ResetPasswordPage = lazyPage(() => import('./pages/ResetPasswordPage.tsx'), 'ResetPasswordPage');
const ChangePasswordPage = lazyPage(() => import('./pages/ChangePasswordPage.tsx'), 'ChangePasswordPage');
const InvitationPage = lazyPage(() => import('./pages/InvitationPage.tsx'), 'InvitationPage');
const RegistrationPage = lazyPage(() => import('./pages/RegistrationPage.tsx'), 'RegistrationPage');
const CliRegistrationPage = lazyPage(() => import('./pages/CliRegistrationPage.tsx'), 'CliRegistrationPage');
const SsoLoginPage = lazyPage(() => import('./pages/SsoLoginPage.tsx'), 'SsoLoginPage');
const AccountPortalRedirectPage = lazyPage(
  () => import('./pages/AccountPortalRedirectPage.tsx'),
  'AccountPortalRedirectPage',
);

/** spec 000 §2: /logout redirects to login with a logout flag. */
function LogoutRedirect() {
  return <Navigate to="/login?logout=true" replace />;
}

const loginChildren: RouteObject[] = [
  { index: true, element: <LoginPage /> },
  { path: 'otp-login', element: <OtpLoginPage /> },
  { path: 'mfa-enroll', element: <MfaEnrollPage /> },
  { path: 'forgot-password', element: <ForgotPasswordPage /> },
  { path: 'reset-password', element: <ResetPasswordPage /> },
  { path: 'change-password', element: <ChangePasswordPage /> },
  { path: 'registration', element: <RegistrationPage /> },
  { path: 'invitation', element: <InvitationPage /> },
  { path: 'cli-registration', element: <CliRegistrationPage /> },
  // spec 000 §2 sso-login: path sso/{ssoLoginType} (sso-login/{type} is accepted too).
  { path: 'sso/:type', element: <SsoLoginPage /> },
  { path: 'sso-login/:type', element: <SsoLoginPage /> },
  { path: 'logout', element: <LogoutRedirect /> },
  // spec 000 §2: /auth-provider/{type} and /user/my-jfrog-redirect, in the login area's frame.
  {
    element: <LoginLayout />,
    errorElement: <RouteErrorBoundary />,
    children: [
      { path: 'auth-provider/:type', element: <SsoLoginPage /> },
      { path: 'user/my-jfrog-redirect', element: <AccountPortalRedirectPage /> },
    ],
  },
];

/**
 * spec 000 §2 login area (path /login, alias /auth), outside the main layout. Registered at the top of the
 * route table. The reset link the server mails is /ui/auth/reset-password?key=…, served by the alias.
 */
export const loginRoutes: RouteObject[] = [
  {
    path: 'login',
    element: <LoginLayout />,
    errorElement: <RouteErrorBoundary />,
    children: loginChildren,
  },
  {
    path: 'auth',
    element: <LoginLayout />,
    errorElement: <RouteErrorBoundary />,
    children: loginChildren,
  },
  { path: 'logout', element: <LogoutRedirect /> },
  // spec 000 §2: /auth-provider/{type} and /user/my-jfrog-redirect, in the login area's frame.
  {
    element: <LoginLayout />,
    errorElement: <RouteErrorBoundary />,
    children: [
      { path: 'auth-provider/:type', element: <SsoLoginPage /> },
      { path: 'user/my-jfrog-redirect', element: <AccountPortalRedirectPage /> },
    ],
  },
];
