import type { Page } from '@playwright/test';
import { apiCall, mainAdminPassword, mainBaseURL, signIn } from '../support/console.ts';
import { expect as baseExpect, test } from '../support/fixtures.ts';

// Each test starts the console afresh a few times (every chunk loaded again): on a loaded 2-core machine a
// screen can take longer than the usual 10 seconds to appear.
const expect = baseExpect.configure({ timeout: 30_000 });
test.describe.configure({ timeout: 120_000 });

/**
 * Issue 22, behaviour: the shell's defects found by walking every route — project settings from the URL, the
 * Learning Center, visitors bounced without a reason, and React Router's warnings on full page loads. Against the
 * main server; anonymous access is switched on for one test and off again.
 */
const V1 = '/ui/api/v1';
const PROJECT = { project_key: 'defectsh', display_name: 'Defects Shell' };
const NPM_REPO = 'defects-shell-npm';
const admin = () => ({ user: 'admin', password: mainAdminPassword() });
const escapeRegExp = (s: string) => s.replace(/[.*+?^${}()|[\]\\]/g, '\\$&');
const at = (p: string) => new RegExp(`/ui${escapeRegExp(p)}$`);

/** React Router's warnings that a route table which does not match its own URLs prints. */
const ROUTER_WARNINGS = /No routes matched location|HydrateFallback|does not have an element or Component/;

function collectConsole(page: Page): string[] {
  const messages: string[] = [];
  page.on('console', (message) => messages.push(`${message.type()}: ${message.text()}`));
  return messages;
}

test.beforeAll(async () => {
  const base = mainBaseURL();
  const projects = (await apiCall(base, admin(), 'GET', `${V1}/projects`)) as { project_key: string }[];
  if (!projects.some((p) => p.project_key === PROJECT.project_key))
    await apiCall(base, admin(), 'POST', `${V1}/projects`, PROJECT);
  const repositories = (await apiCall(base, admin(), 'GET', '/api/repositories')) as { key: string }[];
  if (!repositories.some((r) => r.key === NPM_REPO))
    await apiCall(base, admin(), 'PUT', `/api/repositories/${NPM_REPO}`, {
      rclass: 'local',
      packageType: 'npm',
    });
});

test('issue 22: full page loads of the login area and of main-layout routes print no React Router warning', async ({
  page,
}) => {
  const messages = collectConsole(page);
  // Anonymous: a main-layout URL (the guard sends the visitor to sign in) and the login route.
  await page.goto('/ui/packages');
  await expect(page.getByRole('heading', { level: 1, name: 'Sign in to Granary' })).toBeVisible();
  await signIn(page, mainBaseURL(), 'admin', mainAdminPassword());
  for (const [path, heading] of [
    ['/ui/', 'Packages'],
    ['/ui/overview', 'Granary'],
    ['/ui/admin/management/users', 'Users'],
    [`/ui/project-settings/${PROJECT.project_key}/members`, `${PROJECT.display_name} members`],
    ['/ui/no-such-screen', 'Page not found'],
  ] as const) {
    await page.goto(path);
    await expect(page.getByRole('heading', { level: 1, name: heading }), path).toBeVisible();
  }
  expect(messages.filter((m) => ROUTER_WARNINGS.test(m))).toEqual([]);
});

test('issue 22: /project-settings/{project} opened with "All projects" selected selects that project and shows its settings sidebar', async ({
  page,
  saveScreenshot,
  expectAccessible,
}) => {
  await signIn(page, mainBaseURL(), 'admin', mainAdminPassword());
  // A fresh browser: "All projects" is selected, so the administration sidebar shows.
  await expect(page.getByRole('navigation', { name: 'Administration' })).toBeVisible();
  await page.goto(`/ui/project-settings/${PROJECT.project_key}`);
  await expect(
    page.getByRole('heading', { level: 1, name: `${PROJECT.display_name} settings` }),
  ).toBeVisible();
  const settings = page.getByRole('navigation', { name: 'Project settings' });
  await expect(settings.getByRole('link')).toHaveText(['General', 'Members', 'All projects']);
  await expect(page.getByRole('navigation', { name: 'Administration' })).toHaveCount(0);
  await expect(page.getByRole('combobox', { name: 'Project' }).locator('..')).toContainText(
    PROJECT.display_name,
  );
  await saveScreenshot('defects-shell-project-from-url');
  await expectAccessible();
  // Choosing "All projects" there leaves the project's screens, back to the administration sidebar.
  await page.getByRole('combobox', { name: 'Project' }).click();
  await page
    .locator('.ant-select-dropdown:visible .ant-select-item-option')
    .filter({ hasText: /^All projects$/ })
    .click();
  await expect(page).toHaveURL(at('/packages'));
  await expect(page.getByRole('navigation', { name: 'Administration' })).toBeVisible();
  // A project nobody created: named, with why.
  await page.goto('/ui/project-settings/nosuchproject');
  await expect(
    page.getByText('There is no project "nosuchproject" among the projects you can see'),
  ).toBeVisible();
});

test('issue 22 / spec 000 §2 Learning Center: a guide per format the server runs opens Set Me Up; REST API docs and shortcuts', async ({
  page,
  saveScreenshot,
  expectAccessible,
}) => {
  await signIn(page, mainBaseURL(), 'admin', mainAdminPassword());
  await page.getByRole('button', { name: 'Help' }).click();
  await page.getByRole('menuitem', { name: 'Learning Center' }).click();
  await expect(page).toHaveURL(at('/overview#learning-center'));
  await expect(page.getByRole('heading', { level: 2, name: 'Learning Center' })).toBeInViewport();
  const formats = page.locator('.learning-formats > li').getByRole('heading', { level: 4 });
  // The formats this server runs (GET ui/packagetypes).
  await expect(formats).toHaveText([
    'Generic',
    'Docker',
    'npm',
    'PyPI',
    'Maven',
    'Gradle',
    'Go',
    'Cargo',
    'Terraform',
    'Swift',
    'Debian',
    'RPM',
  ]);
  // The REST API docs the link names are really served.
  const docs = await page.request.get('/api/docs/');
  expect(docs.ok()).toBe(true);
  await expect(page.getByRole('link', { name: '/api/docs/' })).toHaveAttribute('href', '/api/docs/');
  await expect(page.getByRole('row', { name: '/ Focus the search box' })).toBeVisible();
  await saveScreenshot('defects-shell-learning-center');
  await expectAccessible();

  await page.getByRole('button', { name: 'Set Me Up for npm' }).click();
  // The Set Me Up dialog (a lazily loaded overlay), open on an npm repository (this spec's, or one an earlier spec made) with its snippets.
  const repository = page.getByRole('dialog').getByRole('combobox', { name: 'Repository' });
  await expect(repository.locator('..')).toContainText(/\(npm, (local|remote|virtual)\)/);
  await expect(
    page
      .getByRole('dialog')
      .getByText(/npm publish --registry/)
      .first(),
  ).toBeVisible();
  await saveScreenshot('defects-shell-learning-set-me-up');
});

test.describe('anonymous access on (issue 22 / spec 000 §4, §6)', () => {
  const setAnonymous = (on: boolean) =>
    apiCall(mainBaseURL(), admin(), 'PATCH', '/api/security/configuration', { anonymousAccess: on });
  test.afterEach(async () => {
    await setAnonymous(false);
  });

  test('issue 22: an anonymous visitor is offered no sidebar entry that needs sign-in, and is told why when sent to sign in', async ({
    page,
    saveScreenshot,
  }) => {
    await setAnonymous(true);
    await page.goto('/ui/overview');
    const sidebar = page.getByRole('navigation', { name: 'Application' });
    await expect(sidebar.getByRole('link', { name: 'Overview' })).toBeVisible();
    await expect(sidebar.getByRole('link', { name: 'Packages' })).toBeVisible();
    await expect(sidebar.getByRole('link', { name: 'Artifacts' })).toHaveCount(0);
    await expect(sidebar.getByRole('link', { name: 'Security & Compliance' })).toHaveCount(0);
    await page.goto('/ui/repos/tree/General');
    await expect(page).toHaveURL(/\/ui\/login\?redirectTo=%2Frepos%2Ftree%2FGeneral$/);
    await expect(page.getByText('You are not authorized to view this page')).toBeVisible();
    await expect(
      page.getByText('Anonymous access does not include this page: sign in to open it.'),
    ).toBeVisible();
    await saveScreenshot('defects-shell-anonymous-sign-in');
  });
});
