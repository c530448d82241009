import { lazy } from 'react';
import { Navigate, type RouteObject } from 'react-router';
import { RouteErrorBoundary } from '../../shared/components/RouteErrorBoundary.tsx';
import { LoginLayout } from './components/LoginLayout.tsx';

const LoginPage = lazy(() => import('./pages/LoginPage.tsx').then((m) => ({ default: m.LoginPage })));
const OtpLoginPage = lazy(() =>
  import('./pages/OtpLoginPage.tsx').then((m) => ({ default: m.OtpLoginPage })),
);
const MfaEnrollPage = lazy(() =>
  import('./pages/MfaEnrollPage.tsx').then((m) => ({ default: m.MfaEnrollPage })),
);
const ForgotPasswordPage = lazy(() =>
  import('./pages/ForgotPasswordPage.tsx').then((m) => ({ default: m.ForgotPasswordPage })),
);
const ResetPasswordPage = lazy(() =>
  import('./pages/ResetPasswordPage.tsx').then((m) => ({ default: m.ResetPasswordPage })),
);
const ChangePasswordPage = lazy(() =>
  import('./pages/ChangePasswordPage.tsx').then((m) => ({ default: m.ChangePasswordPage })),
);
const InvitationPage = lazy(() =>
  import('./pages/InvitationPage.tsx').then((m) => ({ default: m.InvitationPage })),
);
const RegistrationPage = lazy(() =>
  import('./pages/RegistrationPage.tsx').then((m) => ({ default: m.RegistrationPage })),
);
const CliRegistrationPage = lazy(() =>
  import('./pages/CliRegistrationPage.tsx').then((m) => ({ default: m.CliRegistrationPage })),
);
const SsoNotConfiguredPage = lazy(() =>
  import('./pages/SsoNotConfiguredPage.tsx').then((m) => ({ default: m.SsoNotConfiguredPage })),
);
const AccountPortalRedirectPage = lazy(() =>
  import('./pages/AccountPortalRedirectPage.tsx').then((m) => ({ default: m.AccountPortalRedirectPage })),
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
  { path: 'sso/:type', element: <SsoNotConfiguredPage /> },
  { path: 'sso-login/:type', element: <SsoNotConfiguredPage /> },
  { path: 'logout', element: <LogoutRedirect /> },
  // spec 000 §2: /auth-provider/{type} and /user/my-jfrog-redirect, in the login area's frame.
  {
    element: <LoginLayout />,
    errorElement: <RouteErrorBoundary />,
    children: [
      { path: 'auth-provider/:type', element: <SsoNotConfiguredPage /> },
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
      { path: 'auth-provider/:type', element: <SsoNotConfiguredPage /> },
      { path: 'user/my-jfrog-redirect', element: <AccountPortalRedirectPage /> },
    ],
  },
];
