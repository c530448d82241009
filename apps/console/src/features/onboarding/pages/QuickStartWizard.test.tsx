import { act, fireEvent, screen, waitFor, within } from '@testing-library/react';
import { HttpResponse, http } from 'msw';
import { afterEach, beforeEach, describe, expect, it, vi } from 'vitest';
import { renderApp } from '../../../shared/test/renderApp.tsx';
import { apiUrl, server } from '../../../shared/test/server.ts';
import { userData } from '../../../shared/test/users.ts';

const TYPES = ['generic', 'pypi', 'npm', 'maven', 'docker'];

let status: { isAuthenticated: boolean; isDownloaded: boolean; isPublished: boolean };
let statusCalls: number;
let started: unknown[];
let createdBodies: unknown[];

const layout = (repoType: string) => ({
  repoType,
  layout: repoType === 'maven' ? 'maven-2-default' : 'simple-default',
  localRepoKeys:
    repoType === 'maven' ? ['maven-release-local', 'maven-snapshot-local'] : [`${repoType}-local`],
  remoteRepoKeys: [`${repoType}-remote`],
  virtualRepoKeys: repoType === 'maven' ? ['maven-release', 'maven-snapshot'] : [repoType],
});

beforeEach(() => {
  status = { isAuthenticated: false, isDownloaded: false, isPublished: false };
  statusCalls = 0;
  started = [];
  createdBodies = [];
  server.use(
    http.get(apiUrl('ui/auth/current'), () => HttpResponse.json(userData())),
    http.get(apiUrl('ui/onboarding/personalization'), () =>
      HttpResponse.json({ sent: true, sentAt: '2026-11-24T10:00:00.000Z' }),
    ),
    http.get(apiUrl('ui/onboarding/getReposModel'), () => HttpResponse.json(TYPES.map(layout))),
    http.post(apiUrl('ui/onboarding/createQuickRepos'), async ({ request }) => {
      const body = (await request.json()) as { repoTypes: string[] };
      createdBodies.push(body);
      const type = body.repoTypes[0] ?? '';
      const l = layout(type);
      return HttpResponse.json({
        createdReposByTypes: {
          [type]: {
            type,
            local: type === 'maven' ? l.localRepoKeys : l.localRepoKeys[0],
            remote: l.remoteRepoKeys[0],
            virtual: type === 'maven' ? l.virtualRepoKeys : l.virtualRepoKeys[0],
          },
        },
      });
    }),
    http.get(apiUrl('ui/setMeUp'), ({ request }) => {
      const repoKey = new URL(request.url).searchParams.get('repoKey');
      return HttpResponse.json({
        baseUrl: 'http://granary.test:8080',
        ...(repoKey
          ? { repoKey, repositoryUrl: `http://granary.test:8080/repository/${repoKey}/`, snippets: [] }
          : {}),
      });
    }),
    http.get(apiUrl('ui/onboarding/quickstart/supported'), () => HttpResponse.json({ supported: true })),
    http.post(apiUrl('ui/userIdentifyToken/admin'), () =>
      HttpResponse.json({
        token_id: 't1',
        access_token: 'jwt',
        reference_token: 'ref-token-1',
        expires_in: null,
      }),
    ),
    http.post(apiUrl('ui/onboarding/quickstart/start'), async ({ request }) => {
      started.push(await request.json());
      return HttpResponse.json({ ok: true });
    }),
    http.get(apiUrl('ui/onboarding/quickstart/status'), () => {
      statusCalls += 1;
      return HttpResponse.json(status);
    }),
  );
});

afterEach(() => {
  vi.useRealTimers();
});

/** Opens the wizard itself (the relaunch) at /quick-setup. */
async function openWizard() {
  const app = renderApp('/quick-setup?start=wizard');
  await screen.findByText('Welcome to the product');
  return app;
}

const card = (type: string) => screen.getByTestId(`quick-start-type-${type}`);
const choose = (type: string) => fireEvent.click(within(card(type)).getByRole('button', { pressed: false }));
const createButton = (type: string) => within(card(type)).getByRole('button', { name: /Create/ });

describe('quick-start wizard (issue 17, spec 000 §4)', () => {
  it("spec 000 §4 selection screen: the spec's texts, registered types in the spec's order, Create disabled until chosen, choosing again deselects", async () => {
    await openWizard();
    expect(screen.getByText('Select a package type')).toBeTruthy();
    const list = screen.getByRole('list', { name: 'Package types' });
    const order = within(list)
      .getAllByRole('listitem')
      .map((el) => el.getAttribute('data-testid'));
    expect(order).toEqual(['docker', 'npm', 'maven', 'generic', 'pypi'].map((t) => `quick-start-type-${t}`));
    expect((createButton('npm') as HTMLButtonElement).disabled).toBe(true);
    choose('npm');
    expect((createButton('npm') as HTMLButtonElement).disabled).toBe(false);
    // choosing the active type again deselects it
    fireEvent.click(within(card('npm')).getByRole('button', { pressed: true }));
    expect((createButton('npm') as HTMLButtonElement).disabled).toBe(true);
  });

  it('spec 000 §4/§9 search: 500 ms debounce, case-insensitive match, and the no-match texts', async () => {
    await openWizard();
    vi.useFakeTimers({ shouldAdvanceTime: true });
    const box = screen.getByLabelText('Search For a Package');
    fireEvent.change(box, { target: { value: 'PY' } });
    await act(async () => vi.advanceTimersByTime(400));
    expect(screen.queryByTestId('quick-start-type-npm')).toBeTruthy();
    await act(async () => vi.advanceTimersByTime(150));
    expect(screen.queryByTestId('quick-start-type-npm')).toBeNull();
    expect(screen.getByTestId('quick-start-type-pypi')).toBeTruthy();
    fireEvent.change(box, { target: { value: 'cobol' } });
    await act(async () => vi.advanceTimersByTime(500));
    expect(screen.getByText("Sorry, we couldn't find any matching package types")).toBeTruthy();
    expect(screen.getByText('Please try to change your search')).toBeTruthy();
  });

  it('spec 000 §4/§9 creation: the package icon and "Please wait while we prepare your repository" for at least 4000 ms, then the success texts', async () => {
    await openWizard();
    vi.useFakeTimers({ shouldAdvanceTime: true });
    choose('npm');
    fireEvent.click(createButton('npm'));
    expect(screen.getByText('Please wait while we prepare your repository')).toBeTruthy();
    await act(async () => vi.advanceTimersByTime(3500));
    expect(createdBodies).toEqual([{ repoTypes: ['npm'] }]);
    expect(screen.getByText('Please wait while we prepare your repository')).toBeTruthy();
    await act(async () => vi.advanceTimersByTime(600));
    expect(await screen.findByText('Npm Repository was created successfully!')).toBeTruthy();
    expect(
      screen.getByText(
        'Next, configure your Npm client to work with your repository and run some basic commands.',
      ),
    ).toBeTruthy();
  });

  it('spec 000 §4 Npm flow: the .npmrc with the identity token; polling every 3000 ms turns a step into its completion message; Done goes to /packages', async () => {
    const { router } = await openWizard();
    vi.useFakeTimers({ shouldAdvanceTime: true });
    choose('npm');
    fireEvent.click(createButton('npm'));
    await act(async () => vi.advanceTimersByTime(4100));
    fireEvent.click(await screen.findByTestId('quick-start-continue'));
    const npmrc = await screen.findByTestId('quick-start-code-npmrc', {}, { timeout: 5000 });
    expect(npmrc.textContent).toContain('registry=http://granary.test:8080/repository/npm/');
    expect(npmrc.textContent).toContain(
      `//granary.test:8080/repository/npm/:_auth=${btoa('admin:ref-token-1')}`,
    );
    expect(npmrc.textContent).toContain('always-auth=true');
    await waitFor(() => expect(started).toHaveLength(1));
    expect(started[0]).toMatchObject({
      repoKey: 'npm',
      downloadPackageName: 'jfrog-trial-sum-example',
      uploadPackageName: 'jfrog-npm-trial',
    });

    fireEvent.click(screen.getByTestId('quick-start-next'));
    expect(await screen.findByTestId('quick-start-code-npm-install')).toBeTruthy();
    const before = statusCalls;
    await act(async () => vi.advanceTimersByTime(3000));
    await waitFor(() => expect(statusCalls).toBeGreaterThan(before));
    expect(screen.queryByText('Package Installed and Cached Successfully')).toBeNull();
    status = { ...status, isDownloaded: true };
    await act(async () => vi.advanceTimersByTime(3000));
    expect(await screen.findByText('Package Installed and Cached Successfully')).toBeTruthy();
    expect(screen.getByText("Click on 'Next' to continue")).toBeTruthy();
    // the flag is in: the poller stops
    const settled = statusCalls;
    await act(async () => vi.advanceTimersByTime(6500));
    expect(statusCalls).toBe(settled);

    fireEvent.click(screen.getByTestId('quick-start-next'));
    status = { ...status, isPublished: true };
    await act(async () => vi.advanceTimersByTime(3000));
    expect(await screen.findByText('Package Published Successfully')).toBeTruthy();
    expect(screen.getByText("Click 'Done' to go to your packages")).toBeTruthy();
    server.use(http.post(apiUrl('packages'), () => HttpResponse.json({ data: [], total: 0 })));
    fireEvent.click(screen.getByTestId('quick-start-done'));
    await waitFor(() => expect(router.state.location.pathname).toBe('/ui/packages'));
  });

  it('spec 000 §4 Docker flow: every step switches to its completion message; copy indicator resets after 2000 ms (§9)', async () => {
    const writeText = vi.fn(async () => undefined);
    Object.defineProperty(navigator, 'clipboard', { value: { writeText }, configurable: true });
    await openWizard();
    vi.useFakeTimers({ shouldAdvanceTime: true });
    choose('docker');
    fireEvent.click(createButton('docker'));
    await act(async () => vi.advanceTimersByTime(4100));
    fireEvent.click(await screen.findByTestId('quick-start-continue'));
    expect((await screen.findByTestId('quick-start-code-docker-login')).textContent).toBe(
      'docker login granary.test:8080 -u admin',
    );
    const copy = screen.getByTestId('quick-start-copy-identity-token');
    fireEvent.click(copy);
    await waitFor(() => expect(copy.getAttribute('data-copied')).toBe('true'));
    await act(async () => {});
    expect(writeText).toHaveBeenCalledWith('ref-token-1');
    await act(async () => vi.advanceTimersByTime(1900));
    expect(copy.getAttribute('data-copied')).toBe('true');
    await act(async () => vi.advanceTimersByTime(200));
    expect(copy.getAttribute('data-copied')).toBe('false');

    status = { isAuthenticated: true, isDownloaded: true, isPublished: true };
    await act(async () => vi.advanceTimersByTime(3000));
    expect(await screen.findByText("You're Logged In")).toBeTruthy();
    fireEvent.click(screen.getByTestId('quick-start-next'));
    expect(await screen.findByText('Image Pulled Successfully')).toBeTruthy();
    fireEvent.click(screen.getByTestId('quick-start-next'));
    expect(await screen.findByText('Image Pushed Successfully')).toBeTruthy();
  });

  it('spec 000 §4 Maven flow: settings.xml download, then the dependencies-cached and deployed messages', async () => {
    server.use(
      http.post(apiUrl('ui/setMeUp/mavenDistributionManagement'), () =>
        HttpResponse.json({ distributionManagement: '<distributionManagement/>' }),
      ),
    );
    status = { isAuthenticated: false, isDownloaded: true, isPublished: true };
    await openWizard();
    vi.useFakeTimers({ shouldAdvanceTime: true });
    choose('maven');
    fireEvent.click(createButton('maven'));
    await act(async () => vi.advanceTimersByTime(4100));
    fireEvent.click(await screen.findByTestId('quick-start-continue'));
    expect(await screen.findByTestId('quick-start-maven-settings')).toBeTruthy();
    fireEvent.click(screen.getByTestId('quick-start-next'));
    expect(
      await screen.findByText('Your Maven project dependencies have been cached successfully'),
    ).toBeTruthy();
    fireEvent.click(screen.getByTestId('quick-start-next'));
    expect(await screen.findByText('Package Deployed Successfully')).toBeTruthy();
  });

  it('spec 000 §4 other types close the wizard and open Set Me Up for the created virtual repository', async () => {
    server.use(
      http.get('http://localhost/api/repositories', () =>
        HttpResponse.json([
          { key: 'generic', type: 'VIRTUAL', packageType: 'generic', url: '', description: '' },
        ]),
      ),
    );
    await openWizard();
    vi.useFakeTimers({ shouldAdvanceTime: true });
    choose('generic');
    fireEvent.click(createButton('generic'));
    await act(async () => vi.advanceTimersByTime(4100));
    fireEvent.click(await screen.findByTestId('quick-start-continue'));
    // the Set Me Up dialog, open on the created virtual repository with its snippets
    const repo = await screen.findByRole('combobox', { name: 'Repository' }, { timeout: 15_000 });
    const dialog = repo.closest('[role="dialog"]') as HTMLElement;
    expect(within(dialog).getByText('Set Me Up')).toBeTruthy();
    expect(within(dialog).getByTitle('generic (generic, virtual)')).toBeTruthy();
    expect(await within(dialog).findByText('http://granary.test:8080/repository/generic/')).toBeTruthy();
  });

  it('spec 000 §8 quick start: a repository creation error is shown with the shared error display', async () => {
    server.use(
      http.post(apiUrl('ui/onboarding/createQuickRepos'), () =>
        HttpResponse.json(
          { errors: [{ status: 409, code: 'CONFLICT', message: "Repository 'npm' exists already" }] },
          { status: 409 },
        ),
      ),
    );
    await openWizard();
    vi.useFakeTimers({ shouldAdvanceTime: true });
    choose('npm');
    fireEvent.click(createButton('npm'));
    await act(async () => vi.advanceTimersByTime(4100));
    expect(await screen.findByText("Repository 'npm' exists already")).toBeTruthy();
    expect(screen.getByText('Welcome to the product')).toBeTruthy();
  });
});
