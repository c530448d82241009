import type { StorageGcResult, StorageGcStatus, StorageHistory, StorageSummary } from '@granary/contracts';
import { fireEvent, render, screen, waitFor, within } from '@testing-library/react';
import { HttpResponse, http } from 'msw';
import { beforeEach, describe, expect, it } from 'vitest';
import { renderApp } from '../../../shared/test/renderApp.tsx';
import { apiUrl, server } from '../../../shared/test/server.ts';
import { userData } from '../../../shared/test/users.ts';
import { growthSeries, StorageCharts, usageSeries } from '../components/StorageCharts.tsx';

const summary: StorageSummary = {
  binariesSummary: {
    binariesCount: 3,
    binariesSize: 3 * 1024 * 1024,
    artifactsCount: 5,
    artifactsSize: 5 * 1024 * 1024,
    deduplicationSaving: 2 * 1024 * 1024,
    optimization: '60%',
  },
  repositoriesSummaryList: [
    {
      repoKey: 'libs-local',
      repoType: 'LOCAL',
      packageType: 'maven',
      projectKey: null,
      filesCount: 4,
      usedSpace: 4 * 1024 * 1024,
      percentage: 80,
      quotaBytes: 5 * 1024 * 1024,
      quotaState: 'warning',
    },
    {
      repoKey: 'npm-local',
      repoType: 'LOCAL',
      packageType: 'npm',
      projectKey: 'web',
      filesCount: 1,
      usedSpace: 1024 * 1024,
      percentage: 20,
      quotaBytes: null,
      quotaState: 'ok',
    },
  ],
  projectsSummaryList: [
    {
      projectKey: 'web',
      repositoriesCount: 1,
      filesCount: 1,
      usedSpace: 1024 * 1024,
      quotaBytes: 10 * 1024 * 1024,
      quotaState: 'ok',
    },
  ],
  packageTypesSummaryList: [
    { packageType: 'maven', filesCount: 4, usedSpace: 4 * 1024 * 1024 },
    { packageType: 'npm', filesCount: 1, usedSpace: 1024 * 1024 },
  ],
  trash: { count: 2, size: 512 * 1024 },
  archive: null,
  reclaimable: { blobs: 7, bytes: 3 * 1024 * 1024 },
};

const history: StorageHistory = {
  days: 30,
  snapshots: [
    {
      day: '2026-11-23',
      repoKey: 'libs-local',
      packageType: 'maven',
      projectKey: null,
      filesCount: 2,
      usedBytes: 1000,
    },
    {
      day: '2026-11-23',
      repoKey: 'npm-local',
      packageType: 'npm',
      projectKey: 'web',
      filesCount: 1,
      usedBytes: 500,
    },
    {
      day: '2026-11-24',
      repoKey: 'libs-local',
      packageType: 'maven',
      projectKey: null,
      filesCount: 4,
      usedBytes: 4000,
    },
    {
      day: '2026-11-24',
      repoKey: 'npm-local',
      packageType: 'npm',
      projectKey: 'web',
      filesCount: 1,
      usedBytes: 500,
    },
  ],
};

const idle: StorageGcStatus = {
  running: false,
  progress: null,
  lastRun: null,
  nextRunAt: null,
  intervalSecs: 3600,
  graceSecs: 3600,
  reclaimableBlobs: 7,
  reclaimableBytes: 3 * 1024 * 1024,
  pendingBlobs: 0,
  pendingBytes: 0,
  totalBlobs: 10,
  totalBytes: 6 * 1024 * 1024,
};

const gcResult = (dryRun: boolean): StorageGcResult => ({
  dryRun,
  reclaimableBlobs: 7,
  reclaimableBytes: 3 * 1024 * 1024,
  reclaimedBlobs: dryRun ? 0 : 7,
  reclaimedBytes: dryRun ? 0 : 3 * 1024 * 1024,
  expiredHolds: 0,
  startedAt: '2026-11-24T10:00:00Z',
  durationMs: 1500,
});

let runs: string[];

beforeEach(() => {
  runs = [];
  server.use(
    http.get(apiUrl('ui/auth/current'), () => HttpResponse.json(userData())),
    http.get(apiUrl('ui/storagesummary'), () => HttpResponse.json(summary)),
    // The page's own tests leave the charts out; they are drawn (SVG) in the test of their own below.
    http.get(apiUrl('ui/storagesummary/history'), () =>
      HttpResponse.json(
        { errors: [{ status: 503, code: 'UNAVAILABLE', message: 'later' }] },
        { status: 503 },
      ),
    ),
    http.get(apiUrl('storage/gc'), () => HttpResponse.json(idle)),
    http.post(apiUrl('storage/gc'), ({ request }) => {
      const dryRun = new URL(request.url).searchParams.get('dryRun') === 'true';
      runs.push(dryRun ? 'dry' : 'run');
      return HttpResponse.json(gcResult(dryRun));
    }),
  );
});

describe('storage page (issue 21)', () => {
  it('issue 21: shows the totals with the deduplication saving, trash and reclaimable bytes, and quotas over 80 % as a warning', async () => {
    renderApp('/admin/storage');
    expect(await screen.findByRole('heading', { level: 1, name: 'Storage' })).toBeTruthy();
    expect(await screen.findByText('Deduplication saving')).toBeTruthy();
    expect(screen.getByText('2.0 MB')).toBeTruthy();
    expect(screen.getByText('binaries are 60% of artifacts')).toBeTruthy();
    expect(screen.getByText('2 files')).toBeTruthy();
    expect(screen.getByText('7 unreferenced blobs')).toBeTruthy();
    expect(screen.getByText('1 quota is over 80 %')).toBeTruthy();
    const row = screen.getByRole('link', { name: 'libs-local' }).closest('tr')!;
    expect(within(row).getByLabelText('4.0 MB of 5.0 MB (80 %)')).toBeTruthy();
    expect(screen.getByRole('link', { name: 'Trash Can' }).getAttribute('href')).toBe('/ui/repos/trash');
  });

  it('issue 21: Dry run shows the reclaimable bytes and blobs; Run now (confirmed) shows what was reclaimed and how long it took', async () => {
    renderApp('/admin/storage');
    fireEvent.click(await screen.findByRole('button', { name: 'Dry run' }));
    expect(await screen.findByText('Dry run: 3.0 MB in 7 blobs can be reclaimed')).toBeTruthy();
    fireEvent.click(screen.getByRole('button', { name: 'Run now' }));
    // The confirmation's own "Run now" button.
    await waitFor(() => expect(screen.getAllByRole('button', { name: 'Run now' })).toHaveLength(2));
    fireEvent.click(screen.getAllByRole('button', { name: 'Run now' })[1]!);
    await waitFor(() => expect(runs).toEqual(['dry', 'run']));
    expect(await screen.findByText('Reclaimed 3.0 MB (7 blobs) in 1.5 s')).toBeTruthy();
  });

  it('issue 21: the charts read use per repository per day and the growth from one day to the next', () => {
    expect(usageSeries(history)).toEqual([
      { day: '2026-11-23', repository: 'libs-local', bytes: 1000 },
      { day: '2026-11-23', repository: 'npm-local', bytes: 500 },
      { day: '2026-11-24', repository: 'libs-local', bytes: 4000 },
      { day: '2026-11-24', repository: 'npm-local', bytes: 500 },
    ]);
    expect(growthSeries(history)).toEqual([{ day: '2026-11-24', growth: 3000 }]);
  });

  it('issue 21: the three charts are drawn (SVG) with a summary and their numbers in a table beside each', () => {
    render(<StorageCharts summary={summary} history={history} />);
    const usage = screen.getByRole('img', { name: 'Usage by repository over time' });
    // one line per repository, a point per day
    expect(usage.querySelectorAll('path')).toHaveLength(2);
    expect(usage.querySelectorAll('circle')).toHaveLength(4);
    expect(usage.querySelector('circle title')?.textContent).toBe('libs-local, 2026-11-23: 1000 B');
    // round ticks in binary units
    expect([...usage.querySelectorAll('svg > g text')].map((t) => t.textContent)).toEqual([
      '0 B',
      '1.0 KB',
      '2.0 KB',
      '3.0 KB',
      '4.0 KB',
    ]);
    expect(
      screen.getByText(
        /^2 series over 2 days \(2026-11-23 to 2026-11-24\); on 2026-11-24: libs-local 3.9 KB, npm-local 500 B$/,
      ),
    ).toBeTruthy();
    const types = screen.getByRole('img', { name: 'Usage by package type' });
    expect(types.querySelectorAll('path')).toHaveLength(2);
    expect(screen.getByText('maven 4.0 MB (80 %), npm 1.0 MB (20 %)')).toBeTruthy();
    const growth = screen.getByRole('img', { name: 'Daily growth of the storage used' });
    expect(growth.querySelectorAll('rect')).toHaveLength(1);
    // the tables hold the same numbers (read by screen readers)
    const table = screen.getByRole('table', { name: 'Usage by package type' });
    expect(
      within(table)
        .getAllByRole('row')
        .map((r) => r.textContent),
    ).toEqual(['Package typeFilesUsedShare', 'maven44.0 MB80 %', 'npm11.0 MB20 %']);
    const daily = screen.getByRole('table', { name: 'Daily growth of the storage used' });
    expect(within(daily).getAllByRole('row')[1]!.textContent).toBe('2026-11-24+2.9 KB');
  });
});
