import { fireEvent, screen, waitFor } from '@testing-library/react';
import { HttpResponse, http } from 'msw';
import { beforeEach, describe, expect, it } from 'vitest';
import { renderApp } from '../../../shared/test/renderApp.tsx';
import { apiUrl, generalConfig, restUrl, server } from '../../../shared/test/server.ts';
import { userData } from '../../../shared/test/users.ts';
import { PACKAGE_SEARCH_TOO_SHORT } from '../searchSyntax.ts';

const asked: string[] = [];

function signedIn(flavour: { lightweight?: boolean; registryOnly?: boolean } = {}) {
  const base = generalConfig();
  server.use(
    http.get(apiUrl('ui/auth/current'), () => HttpResponse.json(userData({ name: 'dev', admin: false }))),
    http.get(apiUrl('ui/generalConfig'), () =>
      HttpResponse.json({ ...base, flavour: { ...base.flavour, ...flavour } }),
    ),
    http.get(apiUrl('ui/artifactsearch/status'), () => HttpResponse.json({ archiveIndexing: false })),
    http.post(apiUrl('packages'), () =>
      HttpResponse.json({
        data: { packages: { edges: [], pageInfo: { hasNextPage: false, endCursor: null } } },
      }),
    ),
    http.get(restUrl('repositories'), () => HttpResponse.json([])),
    http.post(apiUrl('ui/artifactsearch/:kind'), ({ params }) => {
      asked.push(String(params.kind));
      return HttpResponse.json({ results: [], limitReached: false });
    }),
  );
}

beforeEach(() => {
  asked.length = 0;
});

describe('toolbar search (issue 22)', () => {
  it('spec 001 §2: a lightweight instance offers no packages type; search falls back to a type it offers (artifacts), not to a refused screen', async () => {
    signedIn({ lightweight: true, registryOnly: true });
    const { router } = renderApp('/artifactSearchResults');
    const input = await screen.findByRole('textbox', { name: 'Search' });
    await waitFor(() => expect(input.getAttribute('placeholder')).toBe('Search artifacts'));
    fireEvent.mouseDown(screen.getByRole('combobox', { name: 'Search type' }));
    const offered = async () => {
      await waitFor(() =>
        expect(document.querySelectorAll('.ant-select-item-option').length).toBeGreaterThan(0),
      );
      return [...document.querySelectorAll('.ant-select-item-option')].map((o) => o.textContent);
    };
    expect(await offered()).toEqual(['Artifacts', 'Builds']);
    fireEvent.mouseDown(screen.getByRole('combobox', { name: 'Search type' }));

    fireEvent.change(input, { target: { value: 'ab' } });
    fireEvent.keyDown(input, { key: 'Enter', code: 'Enter', keyCode: 13 });
    await waitFor(() => expect(router.state.location.search).toBe('?q=ab'));
    expect(router.state.location.pathname).toBe('/ui/artifactSearchResults');
    await waitFor(() => expect(asked).toEqual(['quick']));
    expect(screen.queryByText('You are not authorized to view this page')).toBeNull();
  });

  it('spec 001 §5: a package term under 3 characters tells the user why nothing happens, under the field', async () => {
    signedIn();
    const { router } = renderApp('/artifactSearchResults');
    const input = await screen.findByRole('textbox', { name: 'Search' });
    expect(input.getAttribute('placeholder')).toBe('Search packages');
    fireEvent.focus(input);
    fireEvent.change(input, { target: { value: 'w*' } });
    fireEvent.keyDown(input, { key: 'Enter', code: 'Enter', keyCode: 13 });
    fireEvent.keyUp(input, { key: 'Enter', code: 'Enter', keyCode: 13 });
    const hint = await screen.findByText(PACKAGE_SEARCH_TOO_SHORT);
    expect(input.getAttribute('aria-describedby')?.split(' ')).toContain(hint.id);
    expect(input.getAttribute('aria-invalid')).toBe('true');
    expect(router.state.location.pathname).toBe('/ui/artifactSearchResults');
    // three characters: the hint goes and Enter searches packages
    fireEvent.change(input, { target: { value: 'wid' } });
    await waitFor(() => expect(input.getAttribute('aria-invalid')).toBeNull());
    fireEvent.keyDown(input, { key: 'Enter', code: 'Enter', keyCode: 13 });
    await waitFor(() => expect(router.state.location.pathname).toBe('/ui/packages'));
    expect(router.state.location.search).toBe('?q=wid');
  });
});
