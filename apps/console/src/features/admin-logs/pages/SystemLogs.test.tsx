import { fireEvent, screen, waitFor } from '@testing-library/react';
import { HttpResponse, http } from 'msw';
import { beforeEach, describe, expect, it } from 'vitest';
import { renderApp } from '../../../shared/test/renderApp.tsx';
import { apiUrl, generalConfig, server } from '../../../shared/test/server.ts';
import { userData } from '../../../shared/test/users.ts';

const PAGE = '/admin/monitoring/system_logs';
let reads: URLSearchParams[];

beforeEach(() => {
  reads = [];
  server.use(
    http.get(apiUrl('ui/auth/current'), () => HttpResponse.json(userData())),
    http.get(apiUrl('system/status/nodes'), () =>
      HttpResponse.json({ nodes: [{ node_id: 'node-1', status: 'Online', current: true }] }),
    ),
    http.get(apiUrl('system/logs/config/granary'), () =>
      HttpResponse.json({ logs: ['server.log', 'request.log'], refresh_rate_millis: 10000 }),
    ),
    http.get(apiUrl('system/logs/data/granary'), ({ request }) => {
      const q = new URL(request.url).searchParams;
      reads.push(q);
      const first = q.get('file_size') === '0';
      return HttpResponse.json({
        log_content: first ? `first line of ${q.get('id')}\n` : 'appended line\n',
        file_size: first ? 100 : 200,
        file_id: 'abc',
        last_update_modified: Date.UTC(2026, 0, 2, 3, 4, 5),
        last_update_label: Date.UTC(2026, 0, 2, 3, 5, 0),
      });
    }),
  );
});

const content = () => screen.getByRole('textbox', { name: 'Log content' }) as HTMLTextAreaElement;

describe('system logs page (spec 001 §2 monitoring/system_logs)', () => {
  it('spec 001 §2 / §4: shows the first file of this node; Refresh now appends what follows the prior file size', async () => {
    renderApp(PAGE);
    expect(await screen.findByRole('heading', { level: 1, name: 'System Logs' })).toBeTruthy();
    await waitFor(() => expect(content().value).toBe('first line of server.log\n'));
    expect(reads[0]?.get('nodeId')).toBe('node-1');
    expect(screen.getByTestId('log-countdown').textContent).toMatch(/Next refresh in \d+ s/);
    expect(screen.getByTestId('log-last-modified').textContent).not.toBe('—');
    expect(screen.getByRole('link', { name: /Download logs from Support Zone/ }).getAttribute('href')).toBe(
      '/ui/admin/support-zone',
    );
    fireEvent.click(screen.getByRole('button', { name: 'Refresh now' }));
    await waitFor(() => expect(content().value).toBe('first line of server.log\nappended line\n'));
    expect(reads[1]?.get('file_size')).toBe('100');
    expect(reads[1]?.get('file_id')).toBe('abc');
    fireEvent.click(screen.getByRole('button', { name: 'Pause' }));
    expect(await screen.findByRole('button', { name: 'Resume' })).toBeTruthy();
    expect(screen.getByTestId('log-countdown').textContent).toMatch(/^Paused/);
  });

  it("spec 001 §8: when the log configuration fails, 'No Data Fetched' and the timer stops", async () => {
    server.use(
      http.get(apiUrl('system/logs/config/granary'), () =>
        HttpResponse.json(
          { errors: [{ status: 502, code: 'UPSTREAM_FAILED', message: "Node 'node-1' is Offline" }] },
          { status: 502 },
        ),
      ),
    );
    renderApp(PAGE);
    expect(await screen.findByText('No Data Fetched')).toBeTruthy();
    expect(screen.getByTestId('log-countdown').textContent).toBe('Automatic refresh stopped');
    expect((screen.getByRole('button', { name: 'Resume' }) as HTMLButtonElement).disabled).toBe(true);
    expect(reads).toHaveLength(0);
  });

  it('spec 001 §2: the download link to Support Zone is hidden on cloud', async () => {
    server.use(
      http.get(apiUrl('ui/generalConfig'), () =>
        HttpResponse.json(
          generalConfig({
            flavour: { cloud: true, trial: false, freeTier: false, lightweight: false, registryOnly: false },
          }),
        ),
      ),
    );
    renderApp(PAGE);
    await waitFor(() => expect(content().value).toBe('first line of server.log\n'));
    expect(screen.queryByRole('link', { name: /Support Zone/ })).toBeNull();
  });
});
