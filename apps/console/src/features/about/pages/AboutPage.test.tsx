import { fireEvent, screen, within } from '@testing-library/react';
import { HttpResponse, http } from 'msw';
import { describe, expect, it } from 'vitest';
import { renderApp } from '../../../shared/test/renderApp.tsx';
import { apiUrl, restUrl, server } from '../../../shared/test/server.ts';
import { userData } from '../../../shared/test/users.ts';

const versionUrl = 'http://localhost/ui/api/v1/system/version';

describe('home page (server version)', () => {
  it('shows the version and revision the server answers at /ui/', async () => {
    server.use(http.get(versionUrl, () => HttpResponse.json({ version: '1.4.2', revision: '9f3c2ab' })));

    renderApp('/overview');

    expect(await screen.findByRole('heading', { level: 1, name: 'Granary' })).toBeTruthy();
    const versionRow = (await screen.findByText('Version')).closest('tr');
    expect(versionRow && within(versionRow).getByText('1.4.2')).toBeTruthy();
    expect(screen.getByText('v1.4.2')).toBeTruthy();
    expect(screen.getByText('9f3c2ab')).toBeTruthy();
    expect(screen.queryByRole('alert')).toBeNull();
  });

  it('shows a loading state until the version arrives', async () => {
    let answer: (() => void) | undefined;
    const answered = new Promise<void>((resolve) => {
      answer = resolve;
    });
    server.use(
      http.get(versionUrl, async () => {
        await answered;
        return HttpResponse.json({ version: '1.4.2', revision: '9f3c2ab' });
      }),
    );

    renderApp('/overview');

    expect(await screen.findByText('Loading the server version…')).toBeTruthy();
    answer?.();
    expect(await screen.findByText('v1.4.2')).toBeTruthy();
    expect(screen.queryByText('Loading the server version…')).toBeNull();
  });

  it("shows the server's error message when the API answers 500 with the error envelope", async () => {
    server.use(
      http.get(versionUrl, () =>
        HttpResponse.json(
          { errors: [{ status: 500, code: 'INTERNAL', message: 'The database is not reachable' }] },
          { status: 500 },
        ),
      ),
    );

    renderApp('/overview');

    const alert = await screen.findByRole('alert');
    expect(within(alert).getByText('Could not load the server version')).toBeTruthy();
    expect(within(alert).getByText('The database is not reachable')).toBeTruthy();
    expect(screen.queryByText('Version')).toBeNull();
  });

  it('retries on request and then shows the version', async () => {
    let calls = 0;
    server.use(
      http.get(versionUrl, () => {
        calls += 1;
        return calls === 1
          ? HttpResponse.json(
              { errors: [{ status: 500, code: 'INTERNAL', message: 'Try later' }] },
              { status: 500 },
            )
          : HttpResponse.json({ version: '1.4.2', revision: '9f3c2ab' });
      }),
    );

    renderApp('/overview');

    const retry = await screen.findByRole('button', { name: /retry/i });
    retry.click();
    expect(await screen.findByText('v1.4.2')).toBeTruthy();
    expect(calls).toBe(2);
  });
});

describe('unknown routes', () => {
  it('spec 000 §2: an unknown path under /ui/ shows the not-found page inside the console', async () => {
    renderApp('/some/unknown/path');

    expect(await screen.findByRole('heading', { level: 1, name: 'Page not found' })).toBeTruthy();
    expect(screen.getByText('/ui/some/unknown/path')).toBeTruthy();
    expect(screen.getByRole('link', { name: 'Granary home' })).toBeTruthy();
  });

  it('the not-found page leads back home (spec 000 §4: an anonymous visitor at the root goes to login)', async () => {
    const { router } = renderApp('/404');

    (await screen.findByRole('button', { name: 'Back to home' })).click();

    expect(await screen.findByRole('heading', { name: 'Sign in to Granary' })).toBeTruthy();
    expect(router.state.location.pathname).toBe('/ui/login');
  });
});

describe('Learning Center (issue 22: the Help menu item opens real learning content)', () => {
  it('issue 22 / spec 000 §2 Learning Center: a guide per format the server runs, opening Set Me Up, the REST API docs and the keyboard shortcuts', async () => {
    server.use(
      http.get(apiUrl('ui/auth/current'), () => HttpResponse.json(userData({ name: 'dev', admin: false }))),
      http.get(apiUrl('ui/packagetypes'), () =>
        HttpResponse.json([
          { id: 'npm', displayName: 'npm', icon: 'npm', classes: ['local'] },
          { id: 'pypi', displayName: 'PyPI', icon: 'pypi', classes: ['local'] },
          { id: 'conan', displayName: 'Conan', icon: 'conan', classes: ['local'] },
        ]),
      ),
      http.get(restUrl('repositories'), () =>
        HttpResponse.json([
          { key: 'npm-local', type: 'LOCAL', packageType: 'npm', url: '', description: '' },
          { key: 'npm-remote', type: 'REMOTE', packageType: 'npm', url: '', description: '' },
        ]),
      ),
      http.get(apiUrl('ui/setMeUp'), ({ request }) =>
        HttpResponse.json({
          baseUrl: 'http://localhost',
          repoKey: new URL(request.url).searchParams.get('repoKey') ?? undefined,
          packageType: 'npm',
          repositoryUrl: 'http://localhost/api/npm/npm-local/',
          snippets: [{ title: 'Publish', language: 'shell', code: 'npm publish --registry http://x/' }],
        }),
      ),
    );

    renderApp('/overview#learning-center');

    const center = await screen.findByRole('heading', { level: 2, name: 'Learning Center' });
    expect(center).toBeTruthy();
    const npm = await screen.findByRole('listitem', { name: 'npm' });
    expect(within(npm).getByText(/npm install from the repository and npm publish to it/)).toBeTruthy();
    expect(within(npm).getByText('2 npm repositories you can read.')).toBeTruthy();
    // A format with no readable repository says so and whom to ask; one without a guide line gets the general one.
    const pypi = screen.getByRole('listitem', { name: 'PyPI' });
    expect(
      within(pypi).getByText('No PyPI repository you can read yet: ask an administrator for one.'),
    ).toBeTruthy();
    expect(within(pypi).queryByRole('button')).toBeNull();
    expect(
      within(screen.getByRole('listitem', { name: 'Conan' })).getByText(/Set Me Up shows how/),
    ).toBeTruthy();
    expect(screen.getByRole('link', { name: '/api/docs/' }).getAttribute('href')).toBe('/api/docs/');
    expect(screen.getByRole('rowheader', { name: '/' }).closest('tr')?.textContent).toContain(
      'Focus the search box',
    );

    fireEvent.click(within(npm).getByRole('button', { name: 'Set Me Up for npm' }));
    // The Set Me Up dialog (a lazily loaded overlay), open on the format's first readable repository.
    const repo = await screen.findByRole('combobox', { name: 'Repository' }, { timeout: 15_000 });
    const dialog = repo.closest('[role="dialog"]') as HTMLElement;
    expect(within(dialog).getByText('Set Me Up')).toBeTruthy();
    expect(within(dialog).getByTitle('npm-local (npm, local)')).toBeTruthy();
    expect(await within(dialog).findByText('npm publish --registry http://x/')).toBeTruthy();
  });
});
