import type { DownloadStats } from '@granary/contracts';
import { render, screen } from '@testing-library/react';
import { HttpResponse, http } from 'msw';
import { createMemoryRouter, RouterProvider } from 'react-router';
import { describe, expect, it } from 'vitest';
import { AppProviders } from '../../../app/AppProviders.tsx';
import { createQueryClient } from '../../../app/queryClient.ts';
import { apiUrl, restUrl, server } from '../../../shared/test/server.ts';
import { ArtifactDetails } from './ArtifactDetails.tsx';

const REPO = 'generic-local';
const PATH = 'tools/app-1.0.0.tar.gz';
const AT = Date.UTC(2026, 0, 5, 10, 30);

function serve(stats: DownloadStats) {
  let statsCalls = 0;
  server.use(
    http.get(restUrl(`storage/${REPO}/tools/app-1.0.0.tar.gz`), ({ request }) => {
      if (new URL(request.url).searchParams.has('stats')) {
        statsCalls++;
        return HttpResponse.json(stats);
      }
      return HttpResponse.json({
        repo: REPO,
        path: `/${PATH}`,
        created: '2026-01-01T00:00:00.000Z',
        createdBy: 'admin',
        lastModified: '2026-01-01T00:00:00.000Z',
        lastUpdated: '2026-01-01T00:00:00.000Z',
        size: '2048',
        mimeType: 'application/gzip',
        checksums: { sha256: 'a'.repeat(64), sha1: 'b'.repeat(40), md5: 'c'.repeat(32) },
        uri: `http://localhost/api/storage/${REPO}/${PATH}`,
      });
    }),
    http.get(apiUrl('ui/artifactactions'), () =>
      HttpResponse.json({
        repoKey: REPO,
        path: PATH,
        kind: 'file',
        rclass: 'local',
        permissions: { read: true, annotate: false, write: false, delete: false, manage: false },
        actions: ['Download'],
      }),
    ),
  );
  const router = createMemoryRouter(
    [{ path: '*', element: <ArtifactDetails target={{ repo: REPO, path: PATH }} onNavigate={() => {}} /> }],
    { initialEntries: ['/'] },
  );
  render(
    <AppProviders queryClient={createQueryClient()}>
      <RouterProvider router={router} />
    </AppProviders>,
  );
  return { statsCalls: () => statsCalls };
}

/** The row of a Descriptions item, by its label. */
const cellOf = async (label: string) =>
  (await screen.findByText(label, { selector: 'th, th *' })).closest('tr')!.querySelector('td')!;

describe("issue 21: download statistics in the artifact's details", () => {
  it('issue 21: the file details show "Downloads" and "Last downloaded" (time and by whom) from ?stats', async () => {
    serve({
      uri: `http://localhost/api/storage/${REPO}/${PATH}`,
      downloadCount: 1234,
      lastDownloaded: AT,
      lastDownloadedBy: 'ci-bot',
      remoteDownloadCount: 0,
      remoteLastDownloaded: 0,
    });
    expect(await screen.findByText((1234).toLocaleString(), undefined, { timeout: 10_000 })).toBeTruthy();
    expect((await cellOf('Downloads')).textContent).toBe((1234).toLocaleString());
    expect((await cellOf('Last downloaded')).textContent).toBe(`${new Date(AT).toLocaleString()} by ci-bot`);
  });

  it('issue 21: a file never downloaded reads 0 downloads, last downloaded "Never"', async () => {
    const calls = serve({
      uri: `http://localhost/api/storage/${REPO}/${PATH}`,
      downloadCount: 0,
      lastDownloaded: 0,
      remoteDownloadCount: 0,
      remoteLastDownloaded: 0,
    });
    expect(await screen.findByText('Never', undefined, { timeout: 10_000 })).toBeTruthy();
    expect((await cellOf('Downloads')).textContent).toBe('0');
    expect(calls.statsCalls()).toBe(1);
  });
});
