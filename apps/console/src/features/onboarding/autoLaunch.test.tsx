import { FEATURE_FLAG_DEFAULTS, type Flavour } from '@granary/contracts';
import { screen, waitFor } from '@testing-library/react';
import { HttpResponse, http } from 'msw';
import { beforeEach, describe, expect, it } from 'vitest';
import { renderApp } from '../../shared/test/renderApp.tsx';
import { apiUrl, generalConfig, server } from '../../shared/test/server.ts';
import { userData } from '../../shared/test/users.ts';
import { launchPlan } from './autoLaunch.ts';
import { closeOverlay } from './quickSetupStore.ts';

/** The server's per-user flag, as several browsers or nodes would share it through the database. */
let seenAt: string | null;
let claims: number;
let reposCalls: number;

const flavour = (f: Partial<Flavour>): Flavour => ({
  cloud: false,
  trial: false,
  freeTier: false,
  lightweight: false,
  registryOnly: false,
  ...f,
});

function instance(opts: {
  flavour?: Partial<Flavour>;
  quickDeployLanding?: boolean;
  admin?: boolean;
  onlyDefaultRepositories?: boolean;
}) {
  server.use(
    http.get(apiUrl('ui/auth/current'), () =>
      HttpResponse.json(
        userData(opts.admin === false ? { name: 'sam', admin: false, email: 'sam@example.com' } : {}),
      ),
    ),
    http.get(apiUrl('ui/generalConfig'), () =>
      HttpResponse.json(generalConfig({ flavour: flavour(opts.flavour ?? {}) })),
    ),
    http.get(apiUrl('system/featuresConfig'), () =>
      HttpResponse.json({ ...FEATURE_FLAG_DEFAULTS, quickDeployLanding: opts.quickDeployLanding ?? false }),
    ),
    http.get(apiUrl('ui/onboarding/reposStates'), () => {
      reposCalls += 1;
      const onlyDefault = opts.onlyDefaultRepositories ?? true;
      return HttpResponse.json({
        repoStates: {
          onlyDefaultRepositories: onlyDefault,
          existingKeys: onlyDefault ? ['generic-local'] : ['generic-local', 'libs-release'],
        },
      });
    }),
  );
}

beforeEach(() => {
  // The overlay store lives as long as the page: each test starts with nothing open, as a fresh page does.
  closeOverlay();
  localStorage.clear();
  seenAt = null;
  claims = 0;
  reposCalls = 0;
  server.use(
    http.get(apiUrl('ui/onboarding/gettingStarted'), () =>
      HttpResponse.json({ seen: seenAt !== null, seenAt }),
    ),
    http.post(apiUrl('ui/onboarding/gettingStarted'), () => {
      claims += 1;
      const claimed = seenAt === null;
      seenAt ??= '2026-11-24T18:00:00.000Z';
      return HttpResponse.json({ claimed, seen: true, seenAt });
    }),
    http.get(apiUrl('ui/onboarding/personalization'), () => HttpResponse.json({ sent: false, sentAt: null })),
    http.get(apiUrl('ui/onboarding/getReposModel'), () => HttpResponse.json([])),
  );
});

/** Lets the start-up and any launch settle: the 404 page is up and no onboarding call is still on its way. */
async function settle() {
  await screen.findByText(/not found/i);
  await new Promise((resolve) => setTimeout(resolve, 300));
}

describe('onboarding opens on its own at start-up (issue 17, spec 000 §4)', () => {
  it('spec 000 §4: administrators on the free tier see the getting-started wizard once — shown in place the first time, not again in another browser', async () => {
    instance({ flavour: { freeTier: true } });
    const first = renderApp('/404');
    expect(await screen.findByTestId('onboarding-questionnaire')).toBeTruthy();
    expect(claims).toBe(1);
    first.unmount();
    closeOverlay();
    localStorage.clear();

    // A second browser (fresh query cache and storage): the server says seen, nothing opens, nothing is claimed.
    renderApp('/404');
    await settle();
    expect(screen.queryByTestId('onboarding-questionnaire')).toBeNull();
    expect(claims).toBe(1);
  });

  it('spec 000 §4: a first-login quick deploy redirects to quick-setup (spec 000 §2: pushed when the quick-deploy landing is supported)', async () => {
    instance({ flavour: { freeTier: true }, quickDeployLanding: true });
    const { router } = renderApp('/404');
    await waitFor(() => expect(router.state.location.pathname).toBe('/ui/quick-setup'));
    expect(await screen.findByTestId('onboarding-questionnaire')).toBeTruthy();
    expect(claims).toBe(1);
  });

  it('spec 000 §4: the quick-start wizard initialises without relaunch for a cloud-trial administrator with only default repositories', async () => {
    instance({ flavour: { cloud: true, trial: true } });
    renderApp('/404');
    expect(await screen.findByText('Welcome to the product')).toBeTruthy();
    expect(reposCalls).toBe(1);
    expect(claims).toBe(1);
  });

  it('spec 000 §4: the cloud-trial wizard does not initialise once the instance has more than default repositories', async () => {
    instance({ flavour: { cloud: true, trial: true }, onlyDefaultRepositories: false });
    renderApp('/404');
    await waitFor(() => expect(reposCalls).toBe(1));
    await settle();
    expect(screen.queryByText('Welcome to the product')).toBeNull();
    expect(claims).toBe(0);
  });

  it('spec 000 §4 "once" across browsers and nodes: when another tab or node claimed the showing first, this one opens nothing', async () => {
    instance({ flavour: { freeTier: true } });
    // The GET says unseen, but another browser claims between it and our claim.
    server.use(
      http.post(apiUrl('ui/onboarding/gettingStarted'), () => {
        claims += 1;
        return HttpResponse.json({ claimed: false, seen: true, seenAt: '2026-11-24T18:00:00.000Z' });
      }),
    );
    renderApp('/404');
    await waitFor(() => expect(claims).toBe(1));
    await settle();
    expect(screen.queryByTestId('onboarding-questionnaire')).toBeNull();
  });

  it('spec 000 §6: a regular user on the free tier or a cloud trial gets no onboarding on start-up (admins only)', async () => {
    instance({ flavour: { freeTier: true, cloud: true, trial: true }, admin: false });
    renderApp('/404');
    await settle();
    expect(screen.queryByTestId('onboarding-questionnaire')).toBeNull();
    expect(screen.queryByText('Welcome to the product')).toBeNull();
    expect(claims + reposCalls).toBe(0);
  });

  it('spec 000 §4: on a self-hosted instance (no trial, no free tier, no quick-deploy landing) nothing opens on its own — the relaunch is the user menu', () => {
    const base = {
      admin: true,
      quickSetup: true,
      cloudTrial: false,
      freeTier: false,
      quickDeployLanding: false,
    };
    expect(launchPlan(base)).toBeNull();
    expect(launchPlan({ ...base, freeTier: true, quickSetup: false })).toBeNull();
    expect(launchPlan({ ...base, cloudTrial: true })).toEqual({
      action: 'quickRepositoryCreation',
      needsOnlyDefaultRepositories: true,
    });
  });
});
