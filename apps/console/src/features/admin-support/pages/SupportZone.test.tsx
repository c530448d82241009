import type { SupportBundle } from '@granary/contracts';
import { fireEvent, screen, waitFor, within } from '@testing-library/react';
import { HttpResponse, http } from 'msw';
import { beforeEach, describe, expect, it } from 'vitest';
import { renderApp } from '../../../shared/test/renderApp.tsx';
import { apiUrl, server } from '../../../shared/test/server.ts';
import { userData } from '../../../shared/test/users.ts';
import { toBundleRequest } from '../queries.ts';

const bundle = (
  id: string,
  status: SupportBundle['status'],
  extra: Partial<SupportBundle> = {},
): SupportBundle => ({
  id,
  name: id,
  description: '',
  create_date: '2026-01-02T03:04:05Z',
  status,
  parameters: {},
  size: status === 'success' ? 2048 : null,
  node_id: 'node-1',
  ...extra,
});

let bundles: SupportBundle[];

beforeEach(() => {
  bundles = [
    bundle('ok-bundle', 'success'),
    bundle('bad-bundle', 'failure'),
    bundle('busy-bundle', 'in progress'),
  ];
  server.use(
    http.get(apiUrl('ui/auth/current'), () => HttpResponse.json(userData())),
    http.get(apiUrl('ui/userSupport/listBundles'), () => HttpResponse.json(bundles)),
  );
});

describe('support zone (spec 001 §2 support-zone)', () => {
  it('spec 001 §3: each status shows with its own icon and class; a finished bundle downloads through its URL', async () => {
    renderApp('/admin/support-zone');
    expect(await screen.findByRole('heading', { level: 1, name: 'Support Zone' })).toBeTruthy();
    const row = (name: string) => screen.getByText(name).closest('tr')!;
    await screen.findByText('ok-bundle');
    const ok = row('ok-bundle').querySelector('.support-bundle-status--success')!;
    expect(ok.textContent).toBe('Success');
    expect(ok.querySelector('.anticon-check-circle')).toBeTruthy();
    expect(
      row('bad-bundle').querySelector('.support-bundle-status--failure .anticon-close-circle'),
    ).toBeTruthy();
    expect(
      row('busy-bundle').querySelector('.support-bundle-status--in-progress .anticon-sync'),
    ).toBeTruthy();
    const download = within(row('ok-bundle')).getByRole('link', { name: 'Download ok-bundle' });
    expect(download.getAttribute('href')).toBe('/ui/api/v1/ui/userSupport/downloadBundle/ok-bundle');
    expect(within(row('bad-bundle')).queryByRole('link', { name: /Download/ })).toBeNull();
  });

  it('spec 001 §4, §5: creating shows the in-progress placeholder at once and sends count and interval as integers', async () => {
    let sent: Record<string, unknown> | undefined;
    let answer!: () => void;
    server.use(
      http.post(apiUrl('ui/userSupport/generateBundle'), async ({ request }) => {
        sent = (await request.json()) as Record<string, unknown>;
        await new Promise<void>((resolve) => {
          answer = resolve;
        });
        return HttpResponse.json(bundle('new-one', 'in progress'));
      }),
    );
    renderApp('/admin/support-zone');
    fireEvent.click(await screen.findByRole('button', { name: /Create Support Bundle/ }));
    fireEvent.change(await screen.findByLabelText('Name'), { target: { value: 'my bundle' } });
    fireEvent.click(screen.getByRole('checkbox', { name: 'Thread dump' }));
    fireEvent.change(await screen.findByLabelText('Count'), { target: { value: '3' } });
    fireEvent.change(screen.getByLabelText('Interval (ms)'), { target: { value: '250' } });
    fireEvent.click(screen.getByRole('button', { name: 'Create' }));
    // the placeholder is there before the server answered
    const placeholder = (await screen.findByText('my bundle')).closest('tr')!;
    expect(placeholder.querySelector('.support-bundle-status--in-progress')).toBeTruthy();
    await waitFor(() => expect(sent).toBeDefined());
    expect(sent).toMatchObject({
      name: 'my bundle',
      parameters: { thread_dump: { count: 3, interval: 250 } },
    });
    answer();
  });

  it('spec 001 §8: a failed list shows nothing and no error notification; a failed creation is silent too', async () => {
    server.use(
      http.get(apiUrl('ui/userSupport/listBundles'), () =>
        HttpResponse.json({ errors: [{ status: 500, code: 'INTERNAL', message: 'boom' }] }, { status: 500 }),
      ),
      http.post(apiUrl('ui/userSupport/generateBundle'), () =>
        HttpResponse.json({ errors: [{ status: 500, code: 'INTERNAL', message: 'boom' }] }, { status: 500 }),
      ),
    );
    renderApp('/admin/support-zone');
    expect(await screen.findByText('No support bundles yet.')).toBeTruthy();
    fireEvent.click(screen.getByRole('button', { name: /Create Support Bundle/ }));
    fireEvent.change(await screen.findByLabelText('Name'), { target: { value: 'x' } });
    fireEvent.click(screen.getByRole('button', { name: 'Create' }));
    expect(await screen.findByText('x')).toBeTruthy();
    await new Promise((r) => setTimeout(r, 100));
    expect(screen.queryByText(/boom/)).toBeNull();
    expect(document.querySelector('.ant-message-error, .ant-notification-notice-error')).toBeNull();
  });

  it('spec 001 §5: thread dump count and interval are converted to integers', () => {
    const base = { name: ' n ', logs: true, configuration: true, system: false, threadDump: true };
    expect(toBundleRequest({ ...base, count: '2.7', interval: '100.9' }).parameters).toMatchObject({
      system: false,
      thread_dump: { count: 2, interval: 100 },
    });
    expect(toBundleRequest({ ...base, count: 99, interval: -5 }).parameters?.thread_dump).toEqual({
      count: 10,
      interval: 0,
    });
    expect(toBundleRequest({ ...base, threadDump: false, count: 3 }).parameters?.thread_dump).toEqual({
      count: 0,
      interval: 0,
    });
    expect(
      toBundleRequest({ ...base, startDate: '2026-01-01', endDate: '2026-01-31' }).parameters?.logs,
    ).toEqual({
      include: true,
      start_date: '2026-01-01',
      end_date: '2026-01-31',
    });
    expect(toBundleRequest({ ...base, count: 1 }).name).toBe('n');
  });

  it('spec 001 §2: the support-bundle logs screen shows the waiting-for-logs message until the log arrives, then the log', async () => {
    let release: () => void = () => {};
    const arrived = new Promise<void>((r) => {
      release = r;
    });
    server.use(
      http.get(apiUrl('system/status/nodes'), () =>
        HttpResponse.json({ nodes: [{ node_id: 'node-1', status: 'Online', current: true }] }),
      ),
      http.get(apiUrl('system/logs/config/granary'), () =>
        HttpResponse.json({ logs: ['server.log'], refresh_rate_millis: 10000 }),
      ),
      http.get(apiUrl('system/logs/data/granary'), async () => {
        await arrived;
        return HttpResponse.json({
          log_content: 'a line of server.log\n',
          file_size: 21,
          file_id: 'f1',
          last_update_modified: 1,
          last_update_label: 2,
        });
      }),
    );
    renderApp('/admin/support-zone');
    fireEvent.click(await screen.findByRole('tab', { name: 'Logs' }));
    expect(await screen.findByText('Waiting for logs…')).toBeTruthy();
    release();
    await waitFor(() =>
      expect((screen.getByLabelText('Log content') as HTMLTextAreaElement).value).toContain(
        'a line of server.log',
      ),
    );
    expect(screen.queryByText('Waiting for logs…')).toBeNull();
  });
});
