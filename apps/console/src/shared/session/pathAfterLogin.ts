import { PATH_AFTER_LOGIN_VALIDITY_MS, STORAGE_KEYS } from '@granary/contracts';

/**
 * spec 000 §4 "Path after login": the path a visitor asked for before signing in, kept in session storage
 * (key path_after_login, spec 000 §9) for one hour. Paths are router paths (below the /ui basename).
 */

interface StoredPath {
  path: string;
  expiresAt: number;
}

/** The login area's own paths (spec 000 §2): never a destination after login unless forced. */
const LOGIN_AREA = /^\/(login|auth|logout)(\/|$|\?|#)/;

/** Admin-only paths: everything under /admin except the profile page every user has. */
const PROFILE_PATH = '/admin/artifactory/user_profile';

export function isLoginAreaPath(path: string): boolean {
  return LOGIN_AREA.test(path);
}

/**
 * Login-area pages that need a signed-in user and are returned to after sign-in ("unless forced", spec 000 §4):
 * the CLI registration confirmation.
 */
const RESUMABLE_LOGIN_PAGE = /^\/(login|auth)\/cli-registration(\?|#|$)/;
export function isResumableLoginPath(path: string): boolean {
  return RESUMABLE_LOGIN_PAGE.test(path);
}

export function isAdminOnlyPath(path: string): boolean {
  const pathname = path.split(/[?#]/, 1)[0] ?? '';
  return /^\/admin(\/|$)/.test(pathname) && !pathname.startsWith(PROFILE_PATH);
}

/**
 * A redirect target is honoured only when it is a same-origin relative path: one leading slash, no scheme,
 * no protocol-relative `//host`, no backslash tricks, no control characters.
 */
export function safeRelativePath(value: string | null | undefined): string | null {
  if (!value) return null;
  if (!value.startsWith('/') || value.startsWith('//') || value.startsWith('/\\')) return null;
  // biome-ignore lint/suspicious/noControlCharactersInRegex: refusing control characters is the point.
  if (/[\u0000-\u001f\u007f\\]/.test(value)) return null;
  try {
    const url = new URL(value, 'http://granary.invalid');
    if (url.origin !== 'http://granary.invalid') return null;
    return `${url.pathname}${url.search}${url.hash}`;
  } catch {
    return null;
  }
}

/** Router paths are below /ui; a redirectTo written with the base path is accepted and the base removed. */
export function stripBasePath(path: string): string {
  if (path === '/ui' || path === '/ui/') return '/';
  return path.startsWith('/ui/') ? path.slice(3) : path;
}

export interface SavePathOptions {
  /** Store a login-area path too (spec 000 §4: "unless forced"). */
  force?: boolean;
  now?: number;
}

export function savePathAfterLogin(path: string, options: SavePathOptions = {}): void {
  const safe = safeRelativePath(path);
  if (!safe) return;
  if (isLoginAreaPath(safe) && !options.force) return;
  const stored: StoredPath = {
    path: safe,
    expiresAt: (options.now ?? Date.now()) + PATH_AFTER_LOGIN_VALIDITY_MS,
  };
  try {
    sessionStorage.setItem(STORAGE_KEYS.pathAfterLogin, JSON.stringify(stored));
  } catch {
    // Storage full or disabled: the visitor lands on home after login instead.
  }
}

export function clearPathAfterLogin(): void {
  try {
    sessionStorage.removeItem(STORAGE_KEYS.pathAfterLogin);
  } catch {
    // nothing stored
  }
}

function readStored(): StoredPath | null {
  try {
    const raw = sessionStorage.getItem(STORAGE_KEYS.pathAfterLogin);
    if (!raw) return null;
    const parsed: unknown = JSON.parse(raw);
    if (
      typeof parsed === 'object' &&
      parsed !== null &&
      typeof (parsed as StoredPath).path === 'string' &&
      typeof (parsed as StoredPath).expiresAt === 'number'
    ) {
      return parsed as StoredPath;
    }
  } catch {
    // unreadable: treated as absent
  }
  return null;
}

/** The stored path if still valid (1 hour) and allowed for this user; expired or refused entries are removed. */
export function readPathAfterLogin(options: { admin: boolean; now?: number }): string | null {
  const stored = readStored();
  if (!stored) return null;
  const now = options.now ?? Date.now();
  const path = safeRelativePath(stored.path);
  if (!path || stored.expiresAt <= now || (isAdminOnlyPath(path) && !options.admin)) {
    clearPathAfterLogin();
    return null;
  }
  return path;
}

/**
 * Where to go after signing in: a safe `redirectTo` first, then the stored path, then home. Admin-only
 * destinations are dropped for non-admins. The stored path is consumed.
 */
export function destinationAfterLogin(options: {
  redirectTo: string | null;
  admin: boolean;
  now?: number;
}): string {
  const stored = readPathAfterLogin(options);
  clearPathAfterLogin();
  const requested = safeRelativePath(options.redirectTo);
  const redirect = requested ? stripBasePath(requested) : null;
  for (const candidate of [redirect, stored]) {
    if (!candidate) continue;
    if (isLoginAreaPath(candidate) && !isResumableLoginPath(candidate)) continue;
    if (isAdminOnlyPath(candidate) && !options.admin) continue;
    return candidate;
  }
  return '/';
}

/**
 * spec 000 §4 route guard "Logged-in users hitting login go to their last route": the shell guard remembers the
 * last screen each signed-in user reached in this tab (session storage, with the user's name, so another user
 * signing in on the tab never inherits it); the login route sends a signed-in user back there.
 */
const LAST_ROUTE_KEY = 'last_route';

interface StoredRoute {
  user: string;
  path: string;
}

export function rememberLastRoute(user: string, path: string): void {
  const safe = safeRelativePath(path);
  if (!safe || isLoginAreaPath(safe)) return;
  try {
    sessionStorage.setItem(LAST_ROUTE_KEY, JSON.stringify({ user, path: safe } satisfies StoredRoute));
  } catch {
    // Storage full or disabled: login sends the user home instead.
  }
}

/** The last route `user` reached in this tab, if any and still allowed (admin-only paths for admins only). */
export function readLastRoute(options: { user: string; admin: boolean }): string | null {
  try {
    const parsed: unknown = JSON.parse(sessionStorage.getItem(LAST_ROUTE_KEY) ?? 'null');
    if (typeof parsed !== 'object' || parsed === null) return null;
    const { user, path } = parsed as Partial<StoredRoute>;
    if (user !== options.user || typeof path !== 'string') return null;
    const safe = safeRelativePath(path);
    if (!safe || isLoginAreaPath(safe) || (isAdminOnlyPath(safe) && !options.admin)) return null;
    return safe;
  } catch {
    return null;
  }
}

/**
 * Where a user who is already signed in goes from the login route: a safe `redirectTo` first (an explicit
 * request, e.g. a CLI registration), then their last route, then the stored path after login, then home.
 */
export function destinationForSignedInUser(options: {
  redirectTo: string | null;
  user: string;
  admin: boolean;
  now?: number;
}): string {
  const requested = safeRelativePath(options.redirectTo);
  const redirect = requested ? stripBasePath(requested) : null;
  const honoured =
    redirect !== null &&
    (!isLoginAreaPath(redirect) || isResumableLoginPath(redirect)) &&
    (!isAdminOnlyPath(redirect) || options.admin);
  const last = readLastRoute(options);
  if (!honoured && last) {
    clearPathAfterLogin();
    return last;
  }
  return destinationAfterLogin(options);
}
