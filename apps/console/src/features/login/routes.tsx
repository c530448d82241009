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
  { path: 'logout', element: <LogoutRedirect /> },
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
];
