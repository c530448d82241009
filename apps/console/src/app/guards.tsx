import { ACCESS_MESSAGES, type FeatureFlag, IDLE_TIMEOUT_MS, NO_LICENSE } from '@granary/contracts';
import { useQueryClient } from '@tanstack/react-query';
import { App } from 'antd';
import { useEffect, useRef } from 'react';
import { Navigate, Outlet, useLocation } from 'react-router';
import { NOT_AUTHORIZED_KEY } from '../shared/session/notices.ts';
import { rememberLastRoute, savePathAfterLogin } from '../shared/session/pathAfterLogin.ts';
import { currentUserQueryKey } from '../shared/session/queries.ts';
import { PageLoading } from '../shared/session/RequireSignIn.tsx';
import { useSession } from '../shared/session/SessionProvider.tsx';
import { defaultPath, hiddenMenuItemFor, homePath, jenkinsRedirectPath } from './shellRules.ts';

/**
 * spec 000 §8 blocked navigation: the notification "You are not authorized to view this page"; `why` adds a
 * sentence saying what the user can do, and such a notice stays until closed (or until the user signs in).
 */
export function useNotAuthorized(when: boolean, why?: string) {
  const { notification } = App.useApp();
  useEffect(() => {
    if (!when) return;
    notification.error({
      title: ACCESS_MESSAGES.notAuthorized,
      key: NOT_AUTHORIZED_KEY,
      ...(why ? { description: why, duration: 0 } : {}),
    });
  }, [when, why, notification]);
}

/**
 * Issue 22: why a user without a licence is signed out (spec 000 §4: with licence type N/A a non-admin goes to
 * login), with the server's reason when it gives one.
 */
export function noLicenceNotice(reason: string | null | undefined): string {
  const because = reason ? `${reason.replace(/\.$/, '')}: this` : 'This';
  return `${because} server has no licence, and until an administrator installs one only administrators can use the console.`;
}

/**
 * spec 000 §4 route guard for the main layout: anonymous visitors without allowed access go to the login screen
 * with "You are not authorized to view this page" (at the root, silently); a licence of type N/A sends admins
 * to the licences page and others to login; hidden or disabled menu paths go to the default page; old
 * hash-based build links (`#/builds/…`) go to the builds path with jenkinsRedirect=true.
 */
export function ShellGuard() {
  const session = useSession();
  const location = useLocation();
  const path = location.pathname;
  const anonymousBlocked = !session.loading && !session.canUseConsole && !session.user;
  const atRoot = path === '/' || path === '/home';
  const noLicence =
    !session.loading && session.user !== null && session.licenseType === NO_LICENSE && !session.failed;
  const licencesPath = '/admin/license_management/licenses';
  const hidden = !session.loading && session.user !== null ? hiddenMenuItemFor(path, session.shell) : null;
  const jenkins = jenkinsRedirectPath(location.hash);
  useNotAuthorized(jenkins === null && ((anonymousBlocked && !atRoot) || hidden !== null));
  // spec 000 §4: the screen a signed-in user reached is their last route (the login route sends them back).
  const reached = `${path}${location.search}${location.hash}`;
  const userName = session.loading ? null : (session.user?.name ?? null);
  const shown = jenkins === null && !(noLicence && path !== licencesPath) && hidden === null && !atRoot;
  useEffect(() => {
    if (userName !== null && shown) rememberLastRoute(userName, reached);
  }, [userName, shown, reached]);
  const licenceBounce = jenkins === null && noLicence && !session.user?.admin;
  useNotAuthorized(licenceBounce, licenceBounce ? noLicenceNotice(session.license?.reason) : undefined);
  // Old hash-based build links first, so a visitor who must sign in comes back to the build.
  if (jenkins) return <Navigate to={jenkins} replace />;
  if (session.loading) return <PageLoading label="Starting the console…" />;
  if (anonymousBlocked) {
    const here = `${path}${location.search}${location.hash}`;
    if (atRoot) return <Navigate to="/login" replace />;
    savePathAfterLogin(here);
    return <Navigate to={`/login?${new URLSearchParams({ redirectTo: here })}`} replace />;
  }
  if (noLicence && path !== licencesPath) {
    return <Navigate to={session.user?.admin ? licencesPath : '/login?logout=true'} replace />;
  }
  if (hidden) return <Navigate to={defaultPath(session.shell)} replace />;
  return <Outlet />;
}

/** spec 000 §2: / and /home go to packages, or to repos/tree/General on a lightweight instance. */
export function HomeRedirect() {
  const session = useSession();
  return <Navigate to={homePath(session.shell)} replace />;
}

/** Admin-only screens: others go to the default page with "You are not authorized to view this page". */
export function RequireAdminArea() {
  const session = useSession();
  const refused = session.user !== null && !session.user.admin;
  useNotAuthorized(refused);
  if (refused) return <Navigate to={defaultPath(session.shell)} replace />;
  return <Outlet />;
}

/** spec 000 §2 /template and /demo: without the feature flag, navigation is cancelled (back to the default page). */
export function RequireFeature({ flag }: { flag: FeatureFlag }) {
  const session = useSession();
  const blocked = !session.features[flag];
  useNotAuthorized(blocked);
  if (blocked) return <Navigate to={defaultPath(session.shell)} replace />;
  return <Outlet />;
}

/** spec 000 §4: after 60 seconds idle, the next activity checks that the session has not expired. */
export function useIdleSessionCheck(enabled: boolean, now: () => number = Date.now) {
  const queryClient = useQueryClient();
  const last = useRef(now());
  useEffect(() => {
    if (!enabled) return;
    const onActivity = () => {
      const at = now();
      if (at - last.current >= IDLE_TIMEOUT_MS) {
        void queryClient.invalidateQueries({ queryKey: currentUserQueryKey });
      }
      last.current = at;
    };
    const events = ['pointerdown', 'keydown', 'wheel', 'touchstart'] as const;
    for (const name of events) window.addEventListener(name, onActivity, { passive: true });
    return () => {
      for (const name of events) window.removeEventListener(name, onActivity);
    };
  }, [enabled, queryClient, now]);
}
