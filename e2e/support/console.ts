import { expect, type Page } from '@playwright/test';
import { selectWorkerServer } from './workers.ts';

selectWorkerServer();

/** The main server's admin password (set by the global setup). */
export function mainAdminPassword(): string {
  const password = process.env.GRANARY_E2E_ADMIN_PASSWORD;
  if (!password) throw new Error('GRANARY_E2E_ADMIN_PASSWORD is not set: the global setup did not run');
  return password;
}

export function mainBaseURL(): string {
  const url = process.env.GRANARY_E2E_BASE_URL;
  if (!url) throw new Error('GRANARY_E2E_BASE_URL is not set: the global setup did not run');
  return url;
}

/** A REST/console API call with HTTP Basic credentials (no browser session, so no CSRF header needed). */
export async function apiCall(
  baseURL: string,
  auth: { user: string; password: string },
  method: 'GET' | 'PUT' | 'POST' | 'PATCH' | 'DELETE',
  path: string,
  body?: unknown,
): Promise<unknown> {
  const response = await fetch(`${baseURL}${path}`, {
    method,
    headers: {
      authorization: `Basic ${Buffer.from(`${auth.user}:${auth.password}`).toString('base64')}`,
      ...(body === undefined ? {} : { 'content-type': 'application/json' }),
    },
    body: body === undefined ? undefined : JSON.stringify(body),
  });
  const text = await response.text();
  if (!response.ok) throw new Error(`${method} ${path}: ${response.status} ${text}`);
  return text ? JSON.parse(text) : undefined;
}

/** Creates (or updates) a user through the REST API. */
export async function ensureUser(
  baseURL: string,
  adminPassword: string,
  name: string,
  password: string,
  options: { admin?: boolean } = {},
): Promise<void> {
  await apiCall(baseURL, { user: 'admin', password: adminPassword }, 'PUT', `/api/security/users/${name}`, {
    password,
    email: `${name}@example.com`,
    admin: options.admin ?? false,
  });
}

/** Signs in through the login form; `landing` is where the console must end up. */
export async function signIn(
  page: Page,
  baseURL: string,
  user: string,
  password: string,
  landing: RegExp = /\/ui\/(?!login)/,
): Promise<void> {
  await page.goto(`${baseURL}/ui/login?noAutoRedirect`);
  await page.getByLabel('Username').fill(user);
  await page.getByLabel('Password').fill(password);
  await page.getByRole('button', { name: 'Sign in', exact: true }).click();
  await expect(page).toHaveURL(landing);
}

/**
 * Signs the page's browser context in through the console's login call (`POST /ui/api/v1/ui/auth/login`),
 * without loading the login page: for specs whose subject is not the sign-in itself (it has specs of its own).
 */
export async function signInByApi(
  page: Page,
  baseURL: string,
  user: string,
  password: string,
): Promise<void> {
  const answer = await page.request.post(`${baseURL}/ui/api/v1/ui/auth/login`, { data: { user, password } });
  expect(answer.status(), await answer.text()).toBe(200);
}

/** The labels of the open user menu (the sidebars' menus are menus too, so only the open dropdown's). */
export async function openUserMenu(page: Page, user: string): Promise<string[]> {
  const button = page.getByRole('banner').getByRole('button', { name: new RegExp(user) });
  const menu = page.locator('.ant-dropdown-menu:visible');
  let labels: string[] = [];
  // Read until the open menu lists its items: a CI run under load once read an empty list while the
  // dropdown was still settling (and a menu that closed meanwhile is opened again).
  await expect(async () => {
    if (!(await menu.first().isVisible())) await button.click();
    labels = (await menu.getByRole('menuitem').allInnerTexts()).map((t) => t.trim()).filter(Boolean);
    expect(labels).not.toEqual([]);
  }).toPass({ timeout: 15_000 });
  await page.keyboard.press('Escape');
  await expect(page.locator('.ant-dropdown-menu:visible')).toHaveCount(0);
  return labels;
}
