import { screen } from '@testing-library/react';
import { HttpResponse, http } from 'msw';
import { beforeEach, describe, expect, it } from 'vitest';
import { renderApp } from '../../../shared/test/renderApp.tsx';
import { apiUrl, server } from '../../../shared/test/server.ts';
import { userData } from '../../../shared/test/users.ts';
import { NOT_AVAILABLE } from './AdminCataloguePage.tsx';

beforeEach(() => {
  server.use(
    http.get(apiUrl('ui/auth/current'), () => HttpResponse.json(userData({ name: 'admin', admin: true }))),
    http.get(apiUrl('system/licenses'), () =>
      HttpResponse.json({
        type: 'OSS',
        rank: 1,
        source: 'builtin',
        licensedTo: 'Granary',
        id: 'builtin',
        validThrough: null,
        expired: false,
        reason: null,
      }),
    ),
  );
});

describe('issue 22: disabled catalogue entries', () => {
  it('issue 22: a disabled entry says "Not available on this instance" and why, beside itself (no tooltip over its neighbours), and is no link', async () => {
    renderApp('/admin/artifactory/list');
    const reason = await screen.findByText(`${NOT_AVAILABLE}: Projects need a commercial licence`);
    expect(NOT_AVAILABLE).toBe('Not available on this instance');
    // in the entry's own list item, after its label: nothing floats over the other entries
    const item = reason.closest('li') as HTMLElement;
    expect(item.textContent).toBe(`Projects${NOT_AVAILABLE}: Projects need a commercial licence`);
    expect(item.querySelector('a')).toBeNull();
    expect(document.querySelector('.ant-tooltip')).toBeNull();
    expect(screen.queryByText(/later issue/)).toBeNull();
    // its neighbour is still a link
    expect(screen.getByRole('link', { name: 'Single sign-on' })).toBeTruthy();
  });
});

describe('issue 21: storage lifecycle entries of the catalogue', () => {
  it('issue 21: Storage and Cleanup Policies are links to their pages', async () => {
    renderApp('/admin/artifactory/list');
    expect((await screen.findByRole('link', { name: 'Storage' })).getAttribute('href')).toBe(
      '/ui/admin/storage',
    );
    expect(screen.getByRole('link', { name: 'Cleanup Policies' }).getAttribute('href')).toBe(
      '/ui/admin/repositories/cleanup-policies',
    );
  });
});
