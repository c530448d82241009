import { act, fireEvent, screen, waitFor, within } from '@testing-library/react';
import { HttpResponse, http } from 'msw';
import { afterEach, beforeEach, describe, expect, it, vi } from 'vitest';
import { renderApp } from '../../../shared/test/renderApp.tsx';
import { apiUrl, server } from '../../../shared/test/server.ts';
import { userData } from '../../../shared/test/users.ts';
import { closeOverlay } from '../quickSetupStore.ts';

/** The one-time code the test's authenticator shows. */
const CODE = '246810';
let tokenRequests: { otp: string | null }[];
let settingsBodies: Record<string, unknown>[];
let settingsOtps: (string | null)[];

const layout = (repoType: string) => ({
  repoType,
  layout: repoType === 'maven' ? 'maven-2-default' : 'simple-default',
  localRepoKeys:
    repoType === 'maven' ? ['maven-release-local', 'maven-snapshot-local'] : [`${repoType}-local`],
  remoteRepoKeys: [`${repoType}-remote`],
  virtualRepoKeys: repoType === 'maven' ? ['maven-release', 'maven-snapshot'] : [repoType],
});

/** Answers like the server: a user with an authenticator gets a token only with a fresh code (issue 12 §2). */
function handlers(mfa: { enrolledFlag: boolean | undefined; required: boolean }) {
  server.use(
    http.get(apiUrl('ui/auth/current'), () =>
      HttpResponse.json(userData(mfa.enrolledFlag === undefined ? {} : { mfaEnrolled: mfa.enrolledFlag })),
    ),
    http.post(apiUrl('ui/userIdentifyToken/admin'), ({ request }) => {
      const otp = request.headers.get('x-granary-otp');
      tokenRequests.push({ otp });
      if (mfa.required && !otp)
        return HttpResponse.json(
          {
            errors: [
              {
                status: 401,
                code: 'OTP_REQUIRED',
                message:
                  'This user has two-step verification: enter a one-time password from the authenticator app (a code not used before)',
              },
            ],
          },
          { status: 401 },
        );
      if (mfa.required && otp !== CODE)
        return HttpResponse.json(
          { errors: [{ status: 401, code: 'INVALID_OTP', message: 'Invalid one-time code' }] },
          { status: 401 },
        );
      return HttpResponse.json({
        token_id: 't1',
        access_token: 'jwt',
        reference_token: 'ref-token-1',
        expires_in: null,
      });
    }),
  );
}

beforeEach(() => {
  closeOverlay();
  tokenRequests = [];
  settingsBodies = [];
  settingsOtps = [];
  server.use(
    http.get(apiUrl('ui/onboarding/personalization'), () =>
      HttpResponse.json({ sent: true, sentAt: '2026-11-24T10:00:00.000Z' }),
    ),
    http.get(apiUrl('ui/onboarding/getReposModel'), () => HttpResponse.json(['npm', 'maven'].map(layout))),
    http.post(apiUrl('ui/onboarding/createQuickRepos'), async ({ request }) => {
      const type = ((await request.json()) as { repoTypes: string[] }).repoTypes[0] ?? '';
      const l = layout(type);
      return HttpResponse.json({
        createdReposByTypes: {
          [type]: {
            type,
            local: type === 'maven' ? l.localRepoKeys : l.localRepoKeys[0],
            remote: l.remoteRepoKeys[0],
            virtual: type === 'maven' ? l.virtualRepoKeys : l.virtualRepoKeys[0],
          },
        },
      });
    }),
    http.get(apiUrl('ui/setMeUp'), () => HttpResponse.json({ baseUrl: 'http://granary.test:8080' })),
    http.get(apiUrl('ui/onboarding/quickstart/supported'), () => HttpResponse.json({ supported: true })),
    http.post(apiUrl('ui/onboarding/quickstart/start'), () =>
      HttpResponse.json({ isAuthenticated: false, isDownloaded: false, isPublished: false }),
    ),
    http.get(apiUrl('ui/onboarding/quickstart/status'), () =>
      HttpResponse.json({ isAuthenticated: false, isDownloaded: false, isPublished: false }),
    ),
    http.post(apiUrl('ui/setMeUp/downloadBuildMaven'), async ({ request }) => {
      settingsBodies.push((await request.json()) as Record<string, unknown>);
      settingsOtps.push(request.headers.get('x-granary-otp'));
      return new HttpResponse(
        '<settings><servers><server><password>tok-1</password></server></servers></settings>',
        {
          headers: { 'content-type': 'application/xml' },
        },
      );
    }),
    http.post(apiUrl('ui/setMeUp/mavenDistributionManagement'), () =>
      HttpResponse.json({ distributionManagement: '<distributionManagement/>' }),
    ),
  );
});

afterEach(() => {
  vi.useRealTimers();
});

/** Relaunches the wizard, creates `type`'s repositories and waits out the forced 4 s (spec 000 §9). */
async function created(type: string) {
  renderApp('/quick-setup?start=wizard');
  await screen.findByText('Welcome to the product');
  vi.useFakeTimers({ shouldAdvanceTime: true });
  const card = screen.getByTestId(`quick-start-type-${type}`);
  fireEvent.click(within(card).getByRole('button', { pressed: false }));
  fireEvent.click(within(card).getByRole('button', { name: /Create/ }));
  await act(async () => vi.advanceTimersByTime(4100));
  return screen.findByTestId('quick-start-continue');
}

const continueButton = () => screen.getByTestId('quick-start-continue') as HTMLButtonElement;

describe('quick-start wizard rules (issue 17, spec 000 §4, §8)', () => {
  it('issue 17 / spec 000 §8: a user with an authenticator is asked for a one-time code before the identity token, as the profile asks — no "Failed to generate Identity token" dead end', async () => {
    handlers({ enrolledFlag: true, required: true });
    await created('npm');
    const code = screen.getByLabelText('One-time code for the token');
    expect(continueButton().disabled).toBe(true);
    fireEvent.change(code, { target: { value: CODE } });
    expect(continueButton().disabled).toBe(false);
    fireEvent.click(continueButton());
    const npmrc = await screen.findByTestId('quick-start-code-npmrc', {}, { timeout: 5000 });
    expect(npmrc.textContent).toContain(`:_auth=${btoa('admin:ref-token-1')}`);
    expect(tokenRequests).toEqual([{ otp: CODE }]);
  });

  it('issue 17: when the server asks for a code the user data did not announce, the code box appears with the reason, and the code gets the token', async () => {
    handlers({ enrolledFlag: undefined, required: true });
    await created('npm');
    expect(screen.queryByLabelText('One-time code for the token')).toBeNull();
    fireEvent.click(continueButton());
    expect(await screen.findByText('Failed to generate Identity token')).toBeTruthy();
    expect(screen.getByText(/enter a one-time password from the authenticator app/)).toBeTruthy();
    fireEvent.change(screen.getByLabelText('One-time code for the token'), { target: { value: '000000' } });
    fireEvent.click(continueButton());
    expect(await screen.findByText('Invalid one-time code')).toBeTruthy();
    fireEvent.change(screen.getByLabelText('One-time code for the token'), { target: { value: CODE } });
    fireEvent.click(continueButton());
    expect(await screen.findByTestId('quick-start-code-npmrc', {}, { timeout: 5000 })).toBeTruthy();
    expect(tokenRequests.map((r) => r.otp)).toEqual([null, '000000', CODE]);
  });

  it('spec 000 §4 Npm Publish: the step runs npm publish with an explicit --tag (npm 11 refuses the 0.0.0-{timestamp} prerelease without one)', async () => {
    handlers({ enrolledFlag: false, required: false });
    await created('npm');
    expect(screen.queryByLabelText('One-time code for the token')).toBeNull();
    fireEvent.click(continueButton());
    await screen.findByTestId('quick-start-code-npmrc', {}, { timeout: 5000 });
    fireEvent.click(screen.getByTestId('quick-start-next'));
    expect((await screen.findByTestId('quick-start-code-npm-install')).textContent).toMatch(
      /npm pkg set name=jfrog-npm-trial version=0\.0\.0-\d+/,
    );
    fireEvent.click(screen.getByTestId('quick-start-next'));
    expect((await screen.findByTestId('quick-start-code-npm-publish')).textContent).toBe(
      'npm publish --tag latest --registry http://granary.test:8080/repository/npm/',
    );
  });

  it('issue 17 / spec 000 §7 downloadBuildMaven: the Maven Configure step asks for settings.xml with includeToken, so the file carries a real token', async () => {
    handlers({ enrolledFlag: false, required: false });
    const saved: Blob[] = [];
    // happy-dom follows the download link: a fragment keeps the page where it is for the next test.
    const createObjectURL = vi.fn((blob: Blob) => {
      saved.push(blob);
      return '#settings.xml';
    });
    Object.assign(URL, { createObjectURL, revokeObjectURL: vi.fn() });
    await created('maven');
    fireEvent.click(continueButton());
    fireEvent.click(await screen.findByTestId('quick-start-maven-settings', {}, { timeout: 5000 }));
    await waitFor(() => expect(settingsBodies).toHaveLength(1));
    expect(settingsBodies[0]).toEqual({
      release: 'maven-release',
      snapshot: 'maven-snapshot',
      pluginRelease: 'maven-release',
      pluginSnapshot: 'maven-snapshot',
      mirrorAny: 'maven-release',
      includeToken: true,
    });
    await waitFor(() => expect(saved).toHaveLength(1));
    expect(await saved[0]!.text()).toContain('<password>tok-1</password>');
  });

  it('issue 17 / issue 12 §2: a user with an authenticator gives a one-time code for the settings.xml token too, sent with the download', async () => {
    handlers({ enrolledFlag: true, required: true });
    Object.assign(URL, { createObjectURL: vi.fn(() => '#settings.xml'), revokeObjectURL: vi.fn() });
    await created('maven');
    fireEvent.change(screen.getByLabelText('One-time code for the token'), { target: { value: CODE } });
    fireEvent.click(continueButton());
    const download = (await screen.findByTestId(
      'quick-start-maven-settings',
      {},
      { timeout: 5000 },
    )) as HTMLButtonElement;
    expect(download.disabled).toBe(true);
    fireEvent.change(screen.getByLabelText('One-time code for the token'), { target: { value: '135791' } });
    expect(download.disabled).toBe(false);
    fireEvent.click(download);
    await waitFor(() => expect(settingsOtps).toEqual(['135791']));
    expect(settingsBodies[0]).toMatchObject({ includeToken: true });
  });
});
