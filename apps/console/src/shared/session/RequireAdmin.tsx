import { ACCESS_MESSAGES } from '@granary/contracts';
import { useQuery } from '@tanstack/react-query';
import { App } from 'antd';
import { useEffect } from 'react';
import { Navigate, Outlet } from 'react-router';
import { NOT_AUTHORIZED_KEY } from './notices.ts';
import { currentUserQueryOptions } from './queries.ts';
import { PageLoading } from './RequireSignIn.tsx';

/**
 * Admin-only screens (spec 000 §6). Used inside RequireSignIn. A signed-in non-admin is sent home with the
 * notification "You are not authorized to view this page" (spec 000 §4, §8). The server checks every call too.
 */
export function RequireAdmin() {
  const user = useQuery(currentUserQueryOptions());
  const { notification } = App.useApp();
  const refused = user.data !== undefined && !user.data?.admin;
  useEffect(() => {
    if (refused) notification.error({ title: ACCESS_MESSAGES.notAuthorized, key: NOT_AUTHORIZED_KEY });
  }, [refused, notification]);
  if (user.isPending) return <PageLoading />;
  if (refused) return <Navigate to="/" replace />;
  return <Outlet />;
}
