import path from 'node:path';
import type { Page } from '@playwright/test';
import {
  apiCall,
  ensureUser,
  mainAdminPassword,
  mainBaseURL,
  openUserMenu,
  signIn,
} from '../support/console.ts';
import { expect, test } from '../support/fixtures.ts';
import { ROOT, type RunningServer, startServer } from '../support/server.ts';

/**
 * spec 000 §2, §4, §6 and spec 001 §2: every route guard and redirect of the shell, table by table, against
 * the real server; the user menu across roles × flavours × licences on three servers of different kinds.
 */
const PASSWORD = 'Shell-Passw0rd!';
const REGULAR = 'shell-sam';
const PROJECT_ADMIN = 'shell-pat';
const PROJECT = { project_key: 'shellweb', display_name: 'Shell Web' };
const V1 = '/ui/api/v1';

const admin = () => ({ user: 'admin', password: mainAdminPassword() });
const escapeRegExp = (s: string) => s.replace(/[.*+?^${}()|[\]\\]/g, '\\$&');
const at = (p: string) => new RegExp(`/ui${escapeRegExp(p)}$`);

test.describe('shell guards and redirects (self-hosted, full, built-in licence)', () => {
  test.beforeAll(async () => {
    const base = mainBaseURL();
    await ensureUser(base, mainAdminPassword(), REGULAR, PASSWORD);
    await ensureUser(base, mainAdminPassword(), PROJECT_ADMIN, PASSWORD);
    const projects = (await apiCall(base, admin(), 'GET', `${V1}/projects`)) as { project_key: string }[];
    if (!projects.some((p) => p.project_key === PROJECT.project_key))
      await apiCall(base, admin(), 'POST', `${V1}/projects`, PROJECT);
    await apiCall(base, admin(), 'PUT', `${V1}/projects/${PROJECT.project_key}/users/${PROJECT_ADMIN}`, {
      roles: ['Project Admin'],
    });
  });

  const anonymousCases = [
    {
      from: '/ui/#/builds/my-job/12',
      to: /\/ui\/login\?redirectTo=%2Fbuilds%2Fmy-job%2F12%3FjenkinsRedirect%3Dtrue$/,
      rule: 'old hash build link, then sign-in (the build is kept as the destination)',
    },
    { from: '/ui/logout', to: /\/ui\/login$/, rule: '/logout → login with the logout flag → the form' },
    { from: '/ui/bundles', to: /\/ui\/login\?redirectTo=%2Fbundles$/, rule: 'bundles need sign-in' },
  ];
  for (const c of anonymousCases)
    test(`anonymous: ${c.rule} (${c.from})`, async ({ page }) => {
      await page.goto(c.from);
      await expect(page).toHaveURL(c.to);
      await expect(page.getByRole('heading', { level: 1, name: 'Sign in to Granary' })).toBeVisible();
    });

  test('admin: guards and redirects table', async ({ page }) => {
    // A table of page loads, each a fresh console start: more than one test's usual minute on a busy machine.
    test.setTimeout(120_000);
    await signIn(page, mainBaseURL(), 'admin', mainAdminPassword());
    const cases: { from: string; to: RegExp; see?: string; rule: string }[] = [
      {
        from: '/ui/#/builds/my-job/12',
        to: at('/builds/my-job/12?jenkinsRedirect=true'),
        see: 'You followed a build link from your CI server',
        rule: 'spec 000 §4 old hash-based build link → jenkinsRedirect=true',
      },
      {
        from: '/ui/#/builds/my-job/12/1700000000000/published',
        to: at('/builds/my-job/12/1700000000000/published?jenkinsRedirect=true'),
        // The screen shown, not only its URL: it is then remembered as the last route.
        see: 'You followed a build link from your CI server',
        rule: 'deep old build link keeps its path',
      },
      {
        from: '/ui/login',
        to: at('/builds/my-job/12/1700000000000/published?jenkinsRedirect=true'),
        rule: 'spec 000 §4 signed-in user hitting login → last route (the build reached by the old link)',
      },
      {
        from: '/ui/login?redirectTo=%2Fadmin%2Fmanagement%2Fgroups',
        to: at('/admin/management/groups'),
        rule: 'signed-in user hitting login with a destination goes there',
      },
      {
        from: '/ui/bundles',
        to: at('/bundles/source'),
        see: 'No distribution repositories are configured.',
        rule: 'distribution main route, no tab, distribution running (issue 19) and an enterprise-plus licence → source tab',
      },
      { from: '/ui/bundles/nope', to: at('/bundles/source'), rule: 'an unknown tab is replaced' },
      {
        from: '/ui/release-bundles',
        to: at('/release-bundles/source'),
        rule: 'release bundles main route adds its tab',
      },
      { from: '/ui/home', to: at('/packages'), rule: '/home → packages' },
      { from: '/ui/500', to: at('/packages'), rule: '/500 entered directly → / → packages' },
      { from: '/ui/demo', to: at('/topology-teaser'), rule: 'demo flag off → admin default page' },
    ];
    for (const c of cases) {
      await page.goto(c.from);
      await expect(page, `${c.rule}: ${c.from}`).toHaveURL(c.to);
      if (c.see) await expect(page.getByText(c.see)).toBeVisible();
    }
    await page.goto('/ui/no-such-screen');
    await expect(page.getByRole('heading', { level: 1, name: 'Page not found' })).toBeVisible();
  });

  test('regular user: guards, user menu, layout screenshot and accessibility', async ({
    page,
    saveScreenshot,
    expectAccessible,
  }) => {
    await signIn(page, mainBaseURL(), REGULAR, PASSWORD, at('/packages'));
    const cases: { from: string; to: RegExp; notified?: boolean; heading?: string }[] = [
      { from: '/ui/', to: at('/packages') },
      { from: '/ui/admin/management/users', to: at('/packages'), notified: true },
      { from: '/ui/admin/license_management/licenses', to: at('/packages'), notified: true },
      {
        from: '/ui/admin/artifactory/user_profile',
        to: at('/admin/artifactory/user_profile'),
        heading: 'Edit Profile',
      },
      // spec 000 §4: a signed-in user hitting login goes to their last route (the profile, not admin-only).
      { from: '/ui/login', to: at('/admin/artifactory/user_profile') },
      { from: '/ui/#/builds/nightly/7', to: at('/builds/nightly/7?jenkinsRedirect=true') },
    ];
    for (const c of cases) {
      await page.goto(c.from);
      await expect(page, c.from).toHaveURL(c.to);
      if (c.notified) await expect(page.getByText('You are not authorized to view this page')).toBeVisible();
      if (c.heading) await expect(page.getByRole('heading', { level: 1, name: c.heading })).toBeVisible();
    }
    await page.goto('/ui/packages');
    expect(await openUserMenu(page, REGULAR)).toEqual(['Set Me Up', 'Edit Profile', 'Logout']);
    // A regular user sees the application sidebar only (every administration item is admin-only).
    await expect(page.getByRole('navigation', { name: 'Application' })).toBeVisible();
    await expect(page.getByRole('navigation', { name: 'Administration' })).toHaveCount(0);
    // No projects of their own: no project selector.
    await expect(page.getByRole('combobox', { name: 'Project' })).toHaveCount(0);
    await saveScreenshot('shell-regular');
    await expectAccessible();
  });

  test('project selector: a project admin who selects a project gets the project settings sidebar', async ({
    page,
    saveScreenshot,
    expectAccessible,
  }) => {
    await signIn(page, mainBaseURL(), PROJECT_ADMIN, PASSWORD, at('/packages'));
    await expect(page.getByRole('navigation', { name: 'Project settings' })).toHaveCount(0);
    await selectProject(page, 'Shell Web');
    const settings = page.getByRole('navigation', { name: 'Project settings' });
    await expect(settings.getByRole('link')).toHaveText(['General', 'Members']);
    await settings.getByRole('link', { name: 'Members' }).click();
    await expect(page).toHaveURL(at('/project-settings/shellweb/members'));
    await expect(page.getByRole('heading', { level: 1, name: 'Shell Web members' })).toBeVisible();
    await expect(page.getByRole('row', { name: /shell-pat\s+Project Admin/ })).toBeVisible();
    // The choice survives a reload.
    await page.reload();
    await expect(page.getByRole('navigation', { name: 'Project settings' })).toBeVisible();
    await expect(page.getByRole('row', { name: /shell-pat\s+Project Admin/ })).toBeVisible();
    await saveScreenshot('shell-project-admin');
    await expectAccessible();
    await selectProject(page, 'All projects');
    await expect(page.getByRole('navigation', { name: 'Project settings' })).toHaveCount(0);
  });

  test('project selector as admin: project settings replace administration while a project is selected', async ({
    page,
    saveScreenshot,
  }) => {
    await signIn(page, mainBaseURL(), 'admin', mainAdminPassword());
    await expect(page.getByRole('navigation', { name: 'Administration' })).toBeVisible();
    await selectProject(page, 'Shell Web');
    const settings = page.getByRole('navigation', { name: 'Project settings' });
    await expect(settings.getByRole('link')).toHaveText(['General', 'Members', 'All projects']);
    await expect(page.getByRole('navigation', { name: 'Administration' })).toHaveCount(0);
    await settings.getByRole('link', { name: 'General' }).click();
    await expect(page.getByRole('heading', { level: 1, name: 'Shell Web settings' })).toBeVisible();
    await expect(page.getByText('shellweb', { exact: true })).toBeVisible();
    await saveScreenshot('shell-admin-project');
    await selectProject(page, 'All projects');
    await expect(page.getByRole('navigation', { name: 'Administration' })).toBeVisible();
  });

  test('spec 000 §4: after 60 s idle, the next activity checks the session', async ({ page }) => {
    await signIn(page, mainBaseURL(), REGULAR, PASSWORD, at('/packages'));
    const start = Date.now();
    await page.clock.setFixedTime(start);
    await page.goto('/ui/packages');
    await expect(page.getByRole('heading', { level: 1 })).toBeVisible();
    await page.mouse.click(5, 400);
    await page.clock.setFixedTime(start + 61_000);
    const check = page.waitForRequest((r) => r.url().endsWith('/ui/api/v1/ui/auth/current'));
    await page.mouse.click(5, 400);
    await check;
  });
});

async function selectProject(page: Page, label: string) {
  await page.getByRole('combobox', { name: 'Project' }).click();
  await page
    .locator('.ant-select-dropdown:visible .ant-select-item-option')
    .filter({ hasText: new RegExp(`^${escapeRegExp(label)}$`) })
    .click();
}

test.describe('release-bundle redirects by service version (spec 000 §2, 001 §2)', () => {
  const cases = [
    { version: '7.48.0', distribution: false, from: '/ui/bundles/target', to: '/release-bundles/target' },
    {
      version: '7.48.0-rc.1',
      distribution: false,
      from: '/ui/bundles/target',
      to: '/release-bundles/target',
    },
    { version: '7.52.3', distribution: false, from: '/ui/bundles', to: '/release-bundles/target' },
    { version: '7.47.9', distribution: false, from: '/ui/bundles/target', to: '/bundles/target' },
    // A distribution service whose version is not known does not count as 2.16.0.
    { version: '7.48.0', distribution: true, from: '/ui/bundles/target', to: '/bundles/target' },
    // The distribution tab rule: with distribution and an enterprise-plus licence, the source tab.
    { version: '7.47.9', distribution: true, from: '/ui/bundles', to: '/bundles/source' },
  ];
  test('table', async ({ page }) => {
    test.setTimeout(120_000);
    await signIn(page, mainBaseURL(), 'admin', mainAdminPassword());
    const answers = { version: '', distribution: false };
    await page.route(/\/ui\/api\/v1\/system\/version$/, (route) =>
      route.fulfill({ json: { version: answers.version, revision: 'e2e' } }),
    );
    await page.route(/\/ui\/api\/v1\/system\/ismicroserviceenabled$/, (route) =>
      route.fulfill({
        json: {
          artifactory: true,
          access: true,
          xray: false,
          distribution: answers.distribution,
          mc: false,
          pipelines: false,
        },
      }),
    );
    for (const c of cases) {
      answers.version = c.version;
      answers.distribution = c.distribution;
      await page.goto(c.from);
      await expect(page, `${c.version} distribution=${c.distribution} ${c.from}`).toHaveURL(at(c.to));
      await expect(
        page.getByRole('tab', { name: c.to.endsWith('source') ? 'Source' : 'Target' }),
      ).toHaveAttribute('aria-selected', 'true');
    }
  });
});

test.describe('demo routes behind the demo feature flag (spec 000 §2)', () => {
  test.beforeAll(async () => {
    await apiCall(mainBaseURL(), admin(), 'PATCH', `${V1}/system/featuresConfig`, { demo: true });
  });
  test.afterAll(async () => {
    await apiCall(mainBaseURL(), admin(), 'PATCH', `${V1}/system/featuresConfig`, { demo: false });
  });

  test('tree, typescript/greeting and the multi-screen container, which fails when a screen fails', async ({
    page,
  }) => {
    await signIn(page, mainBaseURL(), 'admin', mainAdminPassword());
    for (const [from, to] of [
      ['/ui/demo', '/demo/tree'],
      ['/ui/demo/typescript', '/demo/typescript/greeting'],
    ] as const) {
      await page.goto(from);
      await expect(page).toHaveURL(at(to));
    }
    await page.getByLabel('Your name').fill('Ada');
    await expect(page.getByText('Hello, Ada!')).toBeVisible();

    await page.goto('/ui/demo/multi-mfe-mounting-container');
    await expect(page.getByRole('heading', { name: 'Mock screen one' })).toBeVisible();
    await expect(page.getByRole('heading', { name: 'Mock screen two' })).toBeVisible();

    const failing = await page.context().newPage();
    await failing.route(/\/ui\/js\/MockScreenTwo-[\w-]+\.js$/, (route) => route.abort());
    await failing.goto('/ui/demo/multi-mfe-mounting-container');
    await expect(failing.getByText('Error: failed resolving microfrontend')).toBeVisible();
    await expect(failing.getByText('Microfrontend @granary/demo-mock-two fetching failed!')).toBeVisible();
    await expect(failing.getByRole('heading', { name: 'Mock screen one' })).toHaveCount(0);
    // The rest of the console still works.
    await failing
      .getByRole('navigation', { name: 'Application' })
      .getByRole('link', { name: 'Packages' })
      .click();
    await expect(failing).toHaveURL(at('/packages'));
  });
});

test.describe('login route guard: SAML logout URL and auto-redirect SSO (spec 000 §4)', () => {
  const IDP = 'http://idp.invalid';
  const setLogin = (body: object) =>
    apiCall(mainBaseURL(), admin(), 'PATCH', `${V1}/system/loginConfig`, body);
  test.afterEach(async () => {
    await setLogin({ ssoLoginUrl: null, autoRedirectLogin: false, samlLogoutUrl: null });
  });
  const idpPage = (page: Page) =>
    page.route(`${IDP}/**`, (route) =>
      route.fulfill({ contentType: 'text/html', body: '<title>IdP</title><h1>Identity provider</h1>' }),
    );

  test('a SAML user signing out is sent to the SAML logout URL; an internal user to the login form', async ({
    page,
  }) => {
    await setLogin({ samlLogoutUrl: `${IDP}/slo` });
    await idpPage(page);
    // An internal user: the logout flag clears the session and shows the form.
    await signIn(page, mainBaseURL(), REGULAR, PASSWORD);
    await page.goto('/ui/logout');
    await expect(page).toHaveURL(at('/login'));
    await expect(page.getByRole('heading', { level: 1, name: 'Sign in to Granary' })).toBeVisible();

    // A SAML user whose provider has no session logout of its own: the general SAML logout URL applies (the
    // user data answer is marked saml; sso.spec.ts signs a real SAML user in and out).
    await signIn(page, mainBaseURL(), REGULAR, PASSWORD);
    await page.route(/\/ui\/api\/v1\/ui\/auth\/current$/, async (route) => {
      const response = await route.fetch();
      const body = (await response.json()) as { realm: string; anonymous: boolean };
      await route.fulfill({ response, json: body.anonymous ? body : { ...body, realm: 'saml' } });
    });
    await page.goto('/ui/login?logout=true');
    await expect(page).toHaveURL(`${IDP}/slo`);
    // The console session really ended before leaving.
    const after = await page.request.get('/ui/api/v1/ui/auth/current');
    expect(after.status() === 401 || ((await after.json()) as { anonymous: boolean }).anonymous).toBe(true);
  });

  test('auto-redirect SSO sends a visitor of the login page to the provider; ?noAutoRedirect and a fresh sign-out keep the form', async ({
    page,
  }) => {
    await setLogin({ ssoLoginUrl: `${IDP}/sso`, autoRedirectLogin: true });
    await idpPage(page);
    await page.goto('/ui/packages');
    await expect(page).toHaveURL(`${IDP}/sso`);
    await page.goto('/ui/login?noAutoRedirect');
    await expect(page.getByRole('link', { name: 'Sign in with SSO' })).toHaveAttribute('href', `${IDP}/sso`);
    await signIn(page, mainBaseURL(), REGULAR, PASSWORD);
    await page
      .getByRole('banner')
      .getByRole('button', { name: new RegExp(REGULAR) })
      .click();
    await page.getByRole('menuitem', { name: 'Logout' }).click();
    await expect(page).toHaveURL(at('/login'));
    await expect(page.getByRole('heading', { level: 1, name: 'Sign in to Granary' })).toBeVisible();
  });
});

/**
 * The user menu and landing page across roles × flavours × licences, on servers of three kinds. The full
 * 161-case visibility table is a unit test (shellRules.test.ts); this is its representative in the browser.
 */
test.describe('user menu and landing across flavours and licences', () => {
  const servers: Record<string, RunningServer> = {};
  const kinds: Record<string, Record<string, string>> = {
    'cloud+lightweight, built-in licence': { GRANARY_FLAVOUR: 'cloud,lightweight' },
    'self-hosted full, no licence': { GRANARY_LICENSE: 'none' },
  };
  test.beforeAll(async () => {
    test.setTimeout(120_000);
    await Promise.all(
      Object.entries(kinds).map(async ([kind, env], i) => {
        const server = await startServer({
          adminPassword: mainAdminPassword(),
          logFile: path.join(ROOT, `e2e/test-results/server-flavour-${i}.log`),
          env,
        });
        servers[kind] = server;
        await ensureUser(server.baseURL, mainAdminPassword(), REGULAR, PASSWORD);
      }),
    );
    // Anonymous access on the cloud server: an anonymous visitor uses the console there.
    await apiCall(
      servers['cloud+lightweight, built-in licence']!.baseURL,
      admin(),
      'PATCH',
      '/api/security/configuration',
      { anonymousAccess: true },
    );
  });
  test.afterAll(async () => {
    await Promise.all(Object.values(servers).map((s) => s.stop()));
  });

  const base = (kind: string) =>
    kind === 'self-hosted full, built-in licence' ? mainBaseURL() : servers[kind]!.baseURL;
  const ADMIN_FULL = [
    'Getting Started',
    'Quick Repository Creation',
    'New Local Repository',
    'New Remote Repository',
    'New Virtual Repository',
    'New User',
    'New Group',
    'New Permission',
    'Edit Profile',
    'Logout',
  ];
  const rows: {
    kind: string;
    role: 'admin' | 'regular' | 'anonymous';
    /** Where the row starts (the root unless said). */
    visit?: string;
    lands: string;
    menu: string[] | 'sign-in link' | 'signed out';
  }[] = [
    { kind: 'self-hosted full, built-in licence', role: 'admin', lands: '/packages', menu: ADMIN_FULL },
    {
      kind: 'self-hosted full, built-in licence',
      role: 'regular',
      lands: '/packages',
      menu: ['Set Me Up', 'Edit Profile', 'Logout'],
    },
    { kind: 'self-hosted full, built-in licence', role: 'anonymous', lands: '/login', menu: 'signed out' },
    {
      kind: 'cloud+lightweight, built-in licence',
      role: 'admin',
      lands: '/repos/tree/General',
      menu: [
        'Getting Started',
        'Cloud Subscription and Usage',
        'New Local Repository',
        'New User',
        'New Group',
        'New Permission',
        'Edit Profile',
        'Logout',
      ],
    },
    {
      kind: 'cloud+lightweight, built-in licence',
      role: 'regular',
      lands: '/repos/tree/General',
      menu: ['Cloud Subscription and Usage', 'Edit Profile', 'Logout'],
    },
    {
      kind: 'cloud+lightweight, built-in licence',
      role: 'anonymous',
      // Anonymous access allowed: the shell serves an anonymous visitor, with a sign-in link for a menu.
      visit: '/overview',
      lands: '/overview',
      menu: 'sign-in link',
    },
    {
      kind: 'self-hosted full, no licence',
      role: 'admin',
      lands: '/admin/license_management/licenses',
      menu: ADMIN_FULL.filter((l) => l !== 'Quick Repository Creation'),
    },
    { kind: 'self-hosted full, no licence', role: 'regular', lands: '/login', menu: 'signed out' },
    { kind: 'self-hosted full, no licence', role: 'anonymous', lands: '/login', menu: 'signed out' },
  ];
  test('table', async ({ browser, saveScreenshot }) => {
    test.setTimeout(180_000);
    for (const row of rows) {
      const context = await browser.newContext();
      const page = await context.newPage();
      const url = base(row.kind);
      const label = `${row.kind} · ${row.role}`;
      if (row.role !== 'anonymous') {
        const [user, password] = row.role === 'admin' ? ['admin', mainAdminPassword()] : [REGULAR, PASSWORD];
        // A regular user without a licence is signed out again by the guard (login, without the query).
        const landing = row.lands === '/login' ? /\/ui\/login$/ : /\/ui\/(?!login)/;
        await signIn(page, url, user, password, landing);
      }
      await page.goto(`${url}/ui${row.visit ?? '/'}`);
      await expect(page, label).toHaveURL(at(row.lands));
      if (row.menu === 'signed out') {
        await expect(
          page.getByRole('heading', { level: 1, name: 'Sign in to Granary' }),
          label,
        ).toBeVisible();
      } else if (row.menu === 'sign-in link') {
        await expect(page.getByRole('banner').getByRole('link', { name: 'Sign in' }), label).toBeVisible();
      } else {
        const user = row.role === 'admin' ? 'admin' : REGULAR;
        expect(await openUserMenu(page, user), label).toEqual(row.menu);
      }
      if (row.kind.startsWith('cloud') && row.role === 'admin') {
        // Lightweight: hidden menu paths go to the default page (repositories).
        await page.goto(`${url}/ui/packages`);
        await expect(page, `${label} /packages hidden`).toHaveURL(at('/repos/tree/General'));
        await saveScreenshot('shell-cloud-lightweight-admin', page);
      }
      if (row.kind.endsWith('no licence') && row.role === 'admin') {
        await page.goto(`${url}/ui/admin/management/users`);
        await expect(page, `${label} N/A licence`).toHaveURL(at('/admin/license_management/licenses'));
      }
      await context.close();
    }
  });
});
