import type { TrashItem } from '@granary/contracts';
import { fireEvent, screen, waitFor, within } from '@testing-library/react';
import { HttpResponse, http } from 'msw';
import { beforeEach, describe, expect, it } from 'vitest';
import { renderApp } from '../../../shared/test/renderApp.tsx';
import { apiUrl, restUrl, server } from '../../../shared/test/server.ts';
import { userData } from '../../../shared/test/users.ts';

const item = (path: string, extra: Partial<TrashItem> = {}): TrashItem => ({
  repoKey: 'libs-local',
  path,
  name: path.split('/').at(-1)!,
  size: 2048,
  sha256: 'a'.repeat(64),
  deletedBy: 'alice',
  deletedAt: '2026-11-20T10:00:00.000Z',
  expiresAt: '2026-12-04T10:00:00.000Z',
  packageType: 'generic',
  canRestore: true,
  canDelete: true,
  ...extra,
});

let entries: TrashItem[];
let searched: string[];

beforeEach(() => {
  entries = [item('docs/report.txt'), item('docs/readonly.txt', { canRestore: false, canDelete: false })];
  searched = [];
  server.use(
    http.get(apiUrl('ui/auth/current'), () => HttpResponse.json(userData())),
    http.get(apiUrl('ui/trash/search'), ({ request }) => {
      const q = new URL(request.url).searchParams.get('q') ?? '';
      searched.push(q);
      return HttpResponse.json({
        results: entries.filter((e) => e.path.includes(q)),
        truncated: false,
        canEmpty: false,
      });
    }),
    http.post(restUrl('trash/restore/libs-local/docs/report.txt'), () =>
      HttpResponse.json(
        {
          errors: [
            {
              status: 409,
              code: 'ALREADY_EXISTS',
              message:
                "Cannot restore 'libs-local/docs/report.txt': another file is at 'libs-local/docs/report.txt' now. Delete or move it first, or restore to another path.",
            },
          ],
        },
        { status: 409 },
      ),
    ),
  );
});

describe('issue 21 Trash Can page', () => {
  it('spec 001 §3 Search Trash Can and Restore: the search goes to the server; a refused restore shows its 409 message; buttons follow the permissions', async () => {
    renderApp('/repos/trash');
    expect(await screen.findByRole('heading', { name: 'Trash Can' })).toBeTruthy();
    const search = await screen.findByRole('searchbox', { name: 'Search Trash Can' });
    fireEvent.change(search, { target: { value: 'report' } });
    fireEvent.keyDown(search, { key: 'Enter', code: 'Enter' });
    await waitFor(() => expect(searched).toContain('report'));
    const row = (await screen.findByText('report.txt', { selector: 'strong' })).closest('tr')!;
    expect(screen.queryByText('readonly.txt', { selector: 'strong' })).toBeNull();
    fireEvent.click(within(row as HTMLElement).getByRole('button', { name: 'Restore docs/report.txt' }));
    expect(await screen.findByText(/another file is at 'libs-local\/docs\/report.txt' now/)).toBeTruthy();
    // Not an admin: no Empty Trash Can.
    expect(screen.queryByRole('button', { name: 'Empty Trash Can' })).toBeNull();
  });

  it('spec 001 §3: an entry the caller may only read has neither Restore nor Delete Permanently', async () => {
    renderApp('/repos/trash');
    const row = (await screen.findByText('readonly.txt', { selector: 'strong' })).closest('tr')!;
    expect(within(row as HTMLElement).queryByRole('button')).toBeNull();
  });

  it('issue 21: a long path wraps only after a "/" and a name never breaks mid-word (one line, ellipsis, whole in a tooltip)', async () => {
    entries = [
      item('com/example/very-long-artifact-name/1.0.0-SNAPSHOT/very-long-artifact-name-1.0.0-20261120.jar'),
    ];
    renderApp('/repos/trash');
    const name = 'very-long-artifact-name-1.0.0-20261120.jar';
    const row = (await screen.findAllByText(name))[0]!.closest('tr')!;
    const [nameCell, , pathCell] = [...row.querySelectorAll('td')];
    // the name: one line, cut with an ellipsis rather than wrapped
    expect(nameCell!.querySelector('.ant-typography-ellipsis')).not.toBeNull();
    // the path: its only break opportunities are after the separators; each segment stays whole
    expect(pathCell!.textContent).toBe(entries[0]!.path);
    expect(pathCell!.querySelectorAll('wbr')).toHaveLength(4);
    const pieces = [...pathCell!.querySelectorAll<HTMLElement>('span[style*="nowrap"]')];
    expect(pieces.map((p) => p.textContent)).toEqual([
      'com/',
      'example/',
      'very-long-artifact-name/',
      '1.0.0-SNAPSHOT/',
      name,
    ]);
  });

  it('spec 001 §3 Restore: the success message links to the restored file in the tree', async () => {
    entries = [item('docs/notes.txt')];
    server.use(
      http.post(restUrl('trash/restore/libs-local/docs/notes.txt'), () =>
        HttpResponse.json({ messages: [{ level: 'INFO', message: 'Restored' }], files: 1 }),
      ),
      // the tree it leads to
      http.get(restUrl('repositories'), () => HttpResponse.json([])),
      http.get(apiUrl('ui/artifactactions'), () => HttpResponse.json({}, { status: 404 })),
      http.get(restUrl('storage/*'), () => HttpResponse.json({}, { status: 404 })),
    );
    const { router } = renderApp('/repos/trash');
    fireEvent.click(await screen.findByRole('button', { name: 'Restore docs/notes.txt' }));
    const link = await screen.findByRole('link', { name: 'libs-local/docs/notes.txt' });
    expect(link.getAttribute('href')).toBe('/ui/repos/tree/General/libs-local/docs/notes.txt');
    fireEvent.click(link);
    await waitFor(() =>
      expect(router.state.location.pathname).toBe('/ui/repos/tree/General/libs-local/docs/notes.txt'),
    );
  });
});
