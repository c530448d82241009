import { fireEvent, render, screen, within } from '@testing-library/react';
import { createMemoryRouter, RouterProvider } from 'react-router';
import { afterEach, describe, expect, it, vi } from 'vitest';
import { ChunkLoadError } from './microfrontend.ts';
import { CHUNK_EXPLANATION, RENDER_EXPLANATION, RouteErrorBoundary } from './RouteErrorBoundary.tsx';

function Throws({ error }: { error: Error }): never {
  throw error;
}

function renderFailing(error: Error) {
  const router = createMemoryRouter(
    [
      {
        path: '/',
        handle: { microfrontend: '@granary/teasers' },
        errorElement: <RouteErrorBoundary />,
        element: <Throws error={error} />,
      },
    ],
    { initialEntries: ['/'] },
  );
  return render(<RouterProvider router={router} />);
}

describe('issue 22: loading failures say what happened in words and offer Retry', () => {
  afterEach(() => vi.restoreAllMocks());

  it("issue 22 / spec 000 §8: a chunk that fails keeps 'failed resolving microfrontend' and ChunkLoadError, adds a sentence and Retry", async () => {
    vi.spyOn(console, 'error').mockImplementation(() => {});
    const reload = vi.fn();
    vi.spyOn(window, 'location', 'get').mockReturnValue({ ...window.location, reload });
    renderFailing(new ChunkLoadError('CHUNK_LOAD_FAILED'));
    const alert = await screen.findByRole('alert');
    // spec 000 §8's technical texts, word for word
    expect(within(alert).getByText('Error: failed resolving microfrontend')).toBeTruthy();
    expect(within(alert).getByText('Microfrontend @granary/teasers fetching failed!')).toBeTruthy();
    expect(within(alert).getByText('ChunkLoadError: Loading chunk failed')).toBeTruthy();
    // and what a person understands, with a way out
    expect(within(alert).getByText(CHUNK_EXPLANATION)).toBeTruthy();
    expect(CHUNK_EXPLANATION).toMatch(/could not be downloaded/);
    fireEvent.click(within(alert).getByRole('button', { name: 'Retry' }));
    expect(reload).toHaveBeenCalledOnce();
  });

  it('issue 22: a page that fails to render explains itself, shows the error, and offers Retry', async () => {
    vi.spyOn(console, 'error').mockImplementation(() => {});
    renderFailing(new Error('Cannot read properties of undefined'));
    const alert = await screen.findByRole('alert');
    expect(within(alert).getByText('This page could not be shown')).toBeTruthy();
    expect(within(alert).getByText(RENDER_EXPLANATION)).toBeTruthy();
    expect(within(alert).getByText('Cannot read properties of undefined')).toBeTruthy();
    expect(within(alert).getByRole('button', { name: 'Retry' })).toBeTruthy();
  });
});
