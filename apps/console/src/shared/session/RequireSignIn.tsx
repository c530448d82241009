import { ACCESS_MESSAGES } from '@granary/contracts';
import { useQuery } from '@tanstack/react-query';
import { Alert, App, Flex, Spin } from 'antd';
import { useEffect } from 'react';
import { Navigate, Outlet, useLocation } from 'react-router';
import { NOT_AUTHORIZED_KEY } from './notices.ts';
import { savePathAfterLogin } from './pathAfterLogin.ts';
import { currentUserQueryOptions } from './queries.ts';

export function PageLoading({ label = 'Loading…' }: { label?: string }) {
  return (
    <Flex justify="center" align="center" gap="middle" className="app-page-loading" role="status">
      <Spin size="large" />
      <span>{label}</span>
    </Flex>
  );
}

/** Issue 22: what an anonymous visitor sent to sign in is told (with spec 000 §8's blocked-navigation title). */
export const SIGN_IN_NEEDED = 'Anonymous access does not include this page: sign in to open it.';

/**
 * spec 000 §4 route guard (minimal): an anonymous visitor opening a page that needs sign-in goes to
 * /login?redirectTo=… and the path is kept (path_after_login) so login returns there. Issue 22: the visitor is
 * told why (spec 000 §8 "You are not authorized to view this page", and that signing in opens it).
 */
export function RequireSignIn() {
  const location = useLocation();
  const user = useQuery(currentUserQueryOptions());
  const { notification } = App.useApp();
  const anonymous = user.data === null;
  useEffect(() => {
    if (anonymous)
      notification.error({
        title: ACCESS_MESSAGES.notAuthorized,
        description: SIGN_IN_NEEDED,
        key: NOT_AUTHORIZED_KEY,
      });
  }, [anonymous, notification]);
  if (user.isPending) return <PageLoading label="Checking your session…" />;
  if (user.isError) {
    return (
      <Alert type="error" showIcon title="Could not check your session" description={user.error.message} />
    );
  }
  if (user.data === null) {
    const path = `${location.pathname}${location.search}${location.hash}`;
    savePathAfterLogin(path);
    return <Navigate to={`/login?${new URLSearchParams({ redirectTo: path })}`} replace />;
  }
  return <Outlet />;
}
