import { useQuery } from '@tanstack/react-query';
import { Alert, Flex, Spin } from 'antd';
import { Navigate, Outlet, useLocation } from 'react-router';
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

/**
 * spec 000 §4 route guard (minimal): an anonymous visitor opening a page that needs sign-in goes to
 * /login?redirectTo=… and the path is kept (path_after_login) so login returns there.
 */
export function RequireSignIn() {
  const location = useLocation();
  const user = useQuery(currentUserQueryOptions());
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
