import { entitlementsFor, FEATURE_FLAG_DEFAULTS } from '@granary/contracts';
import { QueryClientProvider } from '@tanstack/react-query';
import { render, screen, waitFor } from '@testing-library/react';
import { delay, HttpResponse, http } from 'msw';
import { describe, expect, it } from 'vitest';
import { createQueryClient } from '../../app/queryClient.ts';
import { apiUrl, generalConfig, server } from '../test/server.ts';
import { userData } from '../test/users.ts';
import { SessionProvider, useSession } from './SessionProvider.tsx';

/**
 * spec 000 §4 application start, observed at the network boundary: step 1 (user data, footer = general
 * configuration, microservices, entitlements), step 2 (configuration items, in parallel, only when signed in
 * or anonymous access is allowed), step 3 (cloud-trial flag, quick-start initialisation), loading off at the
 * end or on failure.
 */
const STEP_1 = [
  'ui/auth/current',
  'ui/generalConfig',
  'system/ismicroserviceenabled',
  'jfconnect/entitlements',
];
const STEP_2 = ['system/featuresConfig', 'system/version', 'system/licenses', 'system/onboarding'];

interface Setup {
  user?: ReturnType<typeof userData> | null;
  anonymousAccessAllowed?: boolean;
  flavour?: Partial<ReturnType<typeof generalConfig>['flavour']>;
  fail?: string;
}

const LICENCE = {
  type: 'ENTERPRISE_PLUS',
  rank: 5,
  source: 'builtin',
  licensedTo: 'Granary',
  id: 'builtin',
  validThrough: null,
  expired: false,
  reason: null,
};

/** Answers every start-up call after a short wait, logging when each call starts and ends. */
function answerStartup(setup: Setup): string[] {
  const log: string[] = [];
  const bodies: Record<string, () => object> = {
    'ui/auth/current': () =>
      setup.user ?? { ...userData({ name: 'anonymous', admin: false }), anonymous: true },
    'ui/generalConfig': () =>
      generalConfig({
        anonymousAccessAllowed: setup.anonymousAccessAllowed ?? false,
        flavour: {
          cloud: false,
          trial: false,
          freeTier: false,
          lightweight: false,
          registryOnly: false,
          ...setup.flavour,
        },
      }),
    'system/ismicroserviceenabled': () => ({
      artifactory: true,
      access: true,
      xray: false,
      distribution: false,
      mc: false,
      pipelines: false,
    }),
    'jfconnect/entitlements': () => ({
      licenseType: 'ENTERPRISE_PLUS',
      rank: 5,
      entitlements: entitlementsFor('ENTERPRISE_PLUS'),
    }),
    'system/featuresConfig': () => FEATURE_FLAG_DEFAULTS,
    'system/version': () => ({ version: '1.0.0', revision: 'test' }),
    'system/licenses': () => LICENCE,
    'system/onboarding': () => ({ completed: false, completedAt: null }),
  };
  server.use(
    ...Object.entries(bodies).map(([path, body]) =>
      http.get(apiUrl(path), async () => {
        log.push(`start ${path}`);
        await delay(path === 'system/licenses' ? 120 : 40);
        log.push(`end ${path}`);
        if (setup.fail === path)
          return HttpResponse.json(
            { errors: [{ status: 500, code: 'INTERNAL', message: 'boom' }] },
            { status: 500 },
          );
        return HttpResponse.json(body());
      }),
    ),
    http.get(apiUrl('projects'), () => HttpResponse.json([])),
  );
  return log;
}

interface Seen {
  loading: boolean;
  failed: boolean;
  canUseConsole: boolean;
  cloudTrial: boolean;
  quickStartEligible: boolean;
}

function renderStartup(): Seen[] {
  const seen: Seen[] = [];
  function Probe() {
    const s = useSession();
    const state = {
      loading: s.loading,
      failed: s.failed,
      canUseConsole: s.canUseConsole,
      cloudTrial: s.cloudTrial,
      quickStartEligible: s.quickStartEligible,
    };
    seen.push(state);
    return <output aria-label="session">{JSON.stringify(state)}</output>;
  }
  render(
    <QueryClientProvider client={createQueryClient()}>
      <SessionProvider>
        <Probe />
      </SessionProvider>
    </QueryClientProvider>,
  );
  return seen;
}

const finalState = async () => {
  await waitFor(() => expect(screen.getByLabelText('session').textContent).toContain('"loading":false'));
  return JSON.parse(screen.getByLabelText('session').textContent ?? '{}') as Seen;
};
const index = (log: string[], entry: string) => log.indexOf(entry);
const starts = (log: string[], paths: string[]) => paths.map((p) => index(log, `start ${p}`));
const ends = (log: string[], paths: string[]) => paths.map((p) => index(log, `end ${p}`));

describe('spec 000 §4 application start order (MSW at the network boundary)', () => {
  it('signed in: step 1 in parallel, then step 2 in parallel after every step-1 answer, loading off after the last', async () => {
    const log = answerStartup({ user: userData() });
    const seen = renderStartup();
    const end = await finalState();
    expect(end).toMatchObject({ loading: false, failed: false, canUseConsole: true });
    // Step 1: all four asked before any answered (parallel).
    expect(Math.max(...starts(log, STEP_1))).toBeLessThan(Math.min(...ends(log, STEP_1)));
    // Step 2: asked only after every step-1 answer, and in parallel.
    expect(Math.min(...starts(log, STEP_2))).toBeGreaterThan(Math.max(...ends(log, STEP_1)));
    expect(Math.max(...starts(log, STEP_2))).toBeLessThan(Math.min(...ends(log, STEP_2)));
    // Loading was on from the first render until the slowest step-2 answer.
    expect(seen[0]?.loading).toBe(true);
    expect(log.at(-1)).toBe('end system/licenses');
  });

  it('anonymous, anonymous access not allowed: step 2 is never asked; loading off after step 1', async () => {
    const log = answerStartup({ user: null });
    renderStartup();
    const end = await finalState();
    expect(end).toMatchObject({ loading: false, failed: false, canUseConsole: false });
    expect(starts(log, STEP_1).every((i) => i >= 0)).toBe(true);
    await delay(150);
    expect(log.filter((l) => STEP_2.some((p) => l.endsWith(p)))).toEqual([]);
  });

  it('anonymous with anonymous access allowed: step 2 is asked', async () => {
    const log = answerStartup({ user: null, anonymousAccessAllowed: true });
    renderStartup();
    const end = await finalState();
    expect(end).toMatchObject({ loading: false, canUseConsole: true });
    expect(starts(log, STEP_2).every((i) => i > Math.max(...ends(log, STEP_1)))).toBe(true);
  });

  for (const failing of STEP_1.slice(1))
    it(`a failing step-1 call (${failing}) switches loading off and step 2 is not asked`, async () => {
      const log = answerStartup({ user: userData(), fail: failing });
      renderStartup();
      const end = await finalState();
      expect(end).toMatchObject({ loading: false, failed: true, cloudTrial: false });
      await delay(150);
      expect(log.filter((l) => STEP_2.some((p) => l.endsWith(p)))).toEqual([]);
    });

  for (const failing of STEP_2)
    it(`a failing step-2 call (${failing}) switches loading off; step 3 does not run`, async () => {
      answerStartup({ user: userData(), fail: failing, flavour: { cloud: true, trial: true } });
      renderStartup();
      const end = await finalState();
      expect(end).toMatchObject({
        loading: false,
        failed: true,
        cloudTrial: false,
        quickStartEligible: false,
      });
    });

  const stepThree = [
    {
      who: 'admin on a cloud trial',
      user: userData(),
      flavour: { cloud: true, trial: true },
      cloudTrial: true,
      quickStart: true,
    },
    {
      who: 'regular user on a cloud trial',
      user: userData({ name: 'sam', admin: false }),
      flavour: { cloud: true, trial: true },
      cloudTrial: true,
      quickStart: false,
    },
    {
      who: 'admin on cloud, not a trial',
      user: userData(),
      flavour: { cloud: true },
      cloudTrial: false,
      quickStart: false,
    },
    { who: 'admin self-hosted', user: userData(), flavour: {}, cloudTrial: false, quickStart: false },
  ];
  for (const c of stepThree)
    it(`step 3 after step 2: ${c.who} → cloud trial ${c.cloudTrial}, quick start ${c.quickStart}`, async () => {
      answerStartup({ user: c.user, flavour: c.flavour });
      const seen = renderStartup();
      const end = await finalState();
      expect(end).toMatchObject({
        loading: false,
        cloudTrial: c.cloudTrial,
        quickStartEligible: c.quickStart,
      });
      // The flag is never set while the start-up is still loading.
      expect(seen.filter((s) => s.loading).every((s) => !s.cloudTrial && !s.quickStartEligible)).toBe(true);
    });
});
