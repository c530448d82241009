import { QueryClientProvider } from '@tanstack/react-query';
import { render, screen } from '@testing-library/react';
import { HttpResponse, http } from 'msw';
import { createMemoryRouter, RouterProvider } from 'react-router';
import { describe, expect, it } from 'vitest';
import { createQueryClient } from '../../../app/queryClient.ts';
import { apiUrl, server } from '../../../shared/test/server.ts';
import { ArtifactSearchPage } from './ArtifactSearchPage.tsx';

function renderAt(path: string) {
  const router = createMemoryRouter([{ path: '/artifactSearchResults', element: <ArtifactSearchPage /> }], {
    initialEntries: [path],
  });
  render(
    <QueryClientProvider client={createQueryClient()}>
      <RouterProvider router={router} />
    </QueryClientProvider>,
  );
}

const hit = {
  name: 'app.jar',
  path: 'libs/app.jar',
  repoKey: 'libs-release',
  relativePath: 'libs-release/libs/app.jar',
  size: 2048,
  modified: '2026-01-02T03:04:05Z',
  sha256: 'a'.repeat(64),
};

describe('ArtifactSearchPage', () => {
  it('spec 001 §4: an archive search falls back to quick search when archive indexing is not enabled', async () => {
    const asked: { kind: string; body: unknown }[] = [];
    server.use(
      http.get(apiUrl('ui/artifactsearch/status'), () => HttpResponse.json({ archiveIndexing: false })),
      http.post(apiUrl('ui/artifactsearch/:kind'), async ({ params, request }) => {
        asked.push({ kind: String(params.kind), body: await request.json() });
        return HttpResponse.json({ results: [hit], limitReached: false });
      }),
    );
    renderAt(`/artifactSearchResults?q=${encodeURIComponent('app.jar searchType:archive')}`);
    expect(await screen.findByText(/Archive indexing is not enabled/)).toBeTruthy();
    expect(screen.getByRole('tab', { name: 'Quick' }).getAttribute('aria-selected')).toBe('true');
    expect(screen.getByRole('tab', { name: 'Archive' }).getAttribute('aria-disabled')).toBe('true');
    const link = await screen.findByRole('link', { name: 'app.jar' });
    expect(link.getAttribute('href')).toBe('/repos/tree/General/libs-release/libs/app.jar');
    expect(asked.map((a) => a.kind)).toEqual(['quick']);
    expect(asked[0]!.body).toEqual({ query: 'app.jar' });
  });

  it('spec 001 §5: with archive indexing on, the toolbar text searchType:archive is an archive search', async () => {
    const asked: string[] = [];
    server.use(
      http.get(apiUrl('ui/artifactsearch/status'), () => HttpResponse.json({ archiveIndexing: true })),
      http.post(apiUrl('ui/artifactsearch/:kind'), ({ params }) => {
        asked.push(String(params.kind));
        return HttpResponse.json({ results: [{ ...hit, entry: 'demo/App.class' }], limitReached: false });
      }),
    );
    renderAt(`/artifactSearchResults?q=${encodeURIComponent('App.class searchType:archive')}`);
    expect(await screen.findByText('demo/App.class')).toBeTruthy();
    expect(screen.getByRole('tab', { name: 'Archive' }).getAttribute('aria-selected')).toBe('true');
    expect(screen.queryByText(/Archive indexing is not enabled/)).toBeNull();
    expect(asked).toContain('archive');
  });
});
