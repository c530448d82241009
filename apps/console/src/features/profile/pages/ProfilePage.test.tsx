import { fireEvent, screen, waitFor, within } from '@testing-library/react';
import { HttpResponse, http } from 'msw';
import { afterEach, beforeEach, describe, expect, it, vi } from 'vitest';
import { renderApp } from '../../../shared/test/renderApp.tsx';
import { apiUrl, server } from '../../../shared/test/server.ts';
import { userData } from '../../../shared/test/users.ts';

const writeText = vi.fn<(text: string) => Promise<void>>();

beforeEach(() => {
  writeText.mockReset().mockResolvedValue(undefined);
  Object.defineProperty(navigator, 'clipboard', { value: { writeText }, configurable: true });
  server.use(
    http.get(apiUrl('ui/auth/current'), () => HttpResponse.json(userData({ name: 'carol', admin: false }))),
    http.get(apiUrl('ui/userApiKey'), () =>
      HttpResponse.json({ exists: false, createdAt: null, lastUsed: null }),
    ),
  );
});
afterEach(() => sessionStorage.clear());

describe('edit profile', () => {
  it('spec 000 §2: /admin/artifactory/user_profile is open to a non-admin and reached from the user menu', async () => {
    const { router } = renderApp('/');
    server.use(http.get(apiUrl('system/version'), () => HttpResponse.json({ version: '1', revision: 'a' })));
    fireEvent.click(await screen.findByRole('button', { name: /carol/ }));
    fireEvent.click(await screen.findByText('Edit Profile'));
    expect(await screen.findByRole('heading', { level: 1, name: 'Edit Profile' })).toBeTruthy();
    expect(router.state.location.pathname).toBe('/ui/admin/artifactory/user_profile');
  });

  it('spec 000 §7, §8: the identity token is generated with POST ui/userIdentifyToken/{name} and copied: "Copied to clipboard"', async () => {
    let body: unknown;
    server.use(
      http.post(apiUrl('ui/userIdentifyToken/carol'), async ({ request }) => {
        body = await request.json();
        return HttpResponse.json({
          token_id: 't1',
          access_token: 'jwt',
          reference_token: 'ref-123',
          expires_in: null,
        });
      }),
    );
    renderApp('/admin/artifactory/user_profile');
    fireEvent.change(await screen.findByLabelText('Token description'), { target: { value: 'laptop' } });
    fireEvent.click(screen.getByRole('button', { name: 'Generate and copy' }));
    expect(await screen.findByText('Copied to clipboard')).toBeTruthy();
    expect(writeText).toHaveBeenCalledWith('ref-123');
    expect(body).toEqual({ description: 'laptop', includeReferenceToken: true });
    expect(screen.getByText('ref-123')).toBeTruthy();
  });

  it('spec 000 §8: an identity token failure says "Failed to generate Identity token"', async () => {
    server.use(
      http.post(apiUrl('ui/userIdentifyToken/carol'), () =>
        HttpResponse.json({ errors: [{ status: 500, code: 'INTERNAL', message: 'x' }] }, { status: 500 }),
      ),
    );
    renderApp('/admin/artifactory/user_profile');
    fireEvent.click(await screen.findByRole('button', { name: 'Generate and copy' }));
    await waitFor(() =>
      expect(screen.getAllByText('Failed to generate Identity token').length).toBeGreaterThan(0),
    );
    expect(writeText).not.toHaveBeenCalled();
  });

  it('spec 000 §8: a password change failure says "Failed to change password"', async () => {
    server.use(
      http.post(apiUrl('changePassword'), () =>
        HttpResponse.json(
          { errors: [{ status: 400, code: 'INVALID', message: 'The current password is wrong' }] },
          { status: 400 },
        ),
      ),
    );
    renderApp('/admin/artifactory/user_profile');
    const card = (await screen.findByRole('heading', { name: 'Change password' })).closest(
      '.ant-card',
    ) as HTMLElement;
    const inputs = card.querySelectorAll('input');
    fireEvent.change(inputs[0] as HTMLInputElement, { target: { value: 'old' } });
    fireEvent.change(inputs[1] as HTMLInputElement, { target: { value: 'N3w-pass' } });
    fireEvent.change(inputs[2] as HTMLInputElement, { target: { value: 'N3w-pass' } });
    fireEvent.click(screen.getByRole('button', { name: 'Change password' }));
    expect(await screen.findByText('Failed to change password')).toBeTruthy();
    expect(screen.getByText('The current password is wrong')).toBeTruthy();
  });
});

describe('edit profile: self-service', () => {
  const cardOf = async (name: string) =>
    (await screen.findByRole('heading', { name })).closest('.ant-card') as HTMLElement;

  it('spec 000 §7 POST ui/userProfile: a non-admin changes their own email with the current password', async () => {
    let body: unknown;
    server.use(
      http.post(apiUrl('ui/userProfile'), async ({ request }) => {
        body = await request.json();
        return HttpResponse.json(userData({ name: 'carol', admin: false, email: 'carol@new.example' }));
      }),
    );
    renderApp('/admin/artifactory/user_profile');
    const card = await cardOf('Personal information');
    const email = within(card).getByLabelText('Email address');
    fireEvent.change(email, { target: { value: 'carol@new.example' } });
    fireEvent.change(within(card).getByLabelText('Current password'), { target: { value: 'pw' } });
    fireEvent.click(within(card).getByRole('button', { name: 'Save email' }));
    expect(await screen.findByText('Email address saved')).toBeTruthy();
    expect(body).toEqual({ password: 'pw', email: 'carol@new.example' });
  });

  it('spec 000 §3 profileUpdatable false: the email is shown read-only', async () => {
    server.use(
      http.get(apiUrl('ui/auth/current'), () =>
        HttpResponse.json(userData({ name: 'carol', admin: false, profileUpdatable: false })),
      ),
    );
    renderApp('/admin/artifactory/user_profile');
    expect(await screen.findByText(/An administrator changes it for you/)).toBeTruthy();
    expect(screen.queryByRole('button', { name: 'Save email' })).toBeNull();
  });

  // Updated for issue 12 §2: the reset used to send the password alone (the bug); it now sends a code too.
  it('a non-admin resets their own authenticator with the password and a code from it (POST auth/mfa/reset, issue 12 §2)', async () => {
    let body: unknown;
    server.use(
      http.get(apiUrl('ui/auth/current'), () =>
        HttpResponse.json(userData({ name: 'carol', admin: false, mfaEnrolled: true })),
      ),
      http.post(apiUrl('auth/mfa/reset'), async ({ request }) => {
        body = await request.json();
        return new HttpResponse(null, { status: 204 });
      }),
    );
    renderApp('/admin/artifactory/user_profile');
    const card = await cardOf('Two-step verification');
    // An enrolled user replaces the authenticator by removing it first.
    expect(within(card).queryByRole('button', { name: 'Set up authenticator' })).toBeNull();
    fireEvent.click(within(card).getByRole('button', { name: 'Reset authenticator' }));
    fireEvent.change(within(card).getByLabelText('Current password'), { target: { value: 'pw' } });
    fireEvent.change(within(card).getByLabelText('Code from the authenticator'), {
      target: { value: '123456' },
    });
    fireEvent.click(within(card).getByRole('button', { name: 'Remove authenticator' }));
    expect(await screen.findByText('Authenticator removed')).toBeTruthy();
    expect(body).toEqual({ password: 'pw', otp: '123456' });
  });

  it('issue 12 §2: a user with an authenticator sends a one-time code (X-Granary-OTP) with the identity token and the API key', async () => {
    const otps: (string | null)[] = [];
    server.use(
      http.get(apiUrl('ui/auth/current'), () =>
        HttpResponse.json(userData({ name: 'carol', admin: false, mfaEnrolled: true })),
      ),
      http.post(apiUrl('ui/userIdentifyToken/carol'), ({ request }) => {
        otps.push(request.headers.get('X-Granary-OTP'));
        return HttpResponse.json({
          token_id: 't',
          access_token: 'a',
          reference_token: 'ref-9',
          expires_in: 3600,
        });
      }),
      http.get(apiUrl('apiKey/carol'), ({ request }) => {
        otps.push(request.headers.get('X-Granary-OTP'));
        return HttpResponse.json({ apiKey: 'grn_key-9' });
      }),
    );
    renderApp('/admin/artifactory/user_profile');
    fireEvent.change(await screen.findByLabelText('One-time code for the token'), {
      target: { value: '111222' },
    });
    fireEvent.click(screen.getByRole('button', { name: 'Generate and copy' }));
    expect(await screen.findByText('ref-9')).toBeTruthy();
    const card = await cardOf('API key');
    fireEvent.change(within(card).getByLabelText('Current password'), { target: { value: 'pw' } });
    fireEvent.change(within(card).getByLabelText('One-time code'), { target: { value: '333444' } });
    fireEvent.click(within(card).getByRole('button', { name: 'Create API key' }));
    expect(await within(card).findByText('grn_key-9')).toBeTruthy();
    expect(otps).toEqual(['111222', '333444']);
  });

  it('issue 22: "Reset authenticator" shows only when an authenticator is set up (not when none is, nor when unknown)', async () => {
    for (const mfaEnrolled of [false, undefined]) {
      server.use(
        http.get(apiUrl('ui/auth/current'), () =>
          HttpResponse.json(userData({ name: 'carol', admin: false, mfaEnrolled })),
        ),
      );
      const { unmount } = renderApp('/admin/artifactory/user_profile');
      const card = await cardOf('Two-step verification');
      expect(within(card).getByRole('button', { name: 'Set up authenticator' })).toBeTruthy();
      expect(
        within(card).queryByRole('button', { name: 'Reset authenticator' }),
        String(mfaEnrolled),
      ).toBeNull();
      unmount();
    }
  });

  it('issue 22: the MFA enrolment key is shown in groups with its copy button beside it, and copies whole', async () => {
    server.use(
      http.get(apiUrl('auth/mfa/enroll/*'), () =>
        HttpResponse.json({
          secret: 'JBSWY3DPEHPK3PXPJBSWY3DPEHPK3PXP',
          otpauthUri: 'otpauth://totp/Granary:carol?secret=JBSWY3DPEHPK3PXP',
          issuer: 'Granary',
          account: 'carol',
        }),
      ),
    );
    renderApp('/admin/artifactory/user_profile');
    const card = await cardOf('Two-step verification');
    fireEvent.click(within(card).getByRole('button', { name: 'Set up authenticator' }));
    const copy = await within(card).findByRole('button', { name: 'Copy key' });
    // the key and its button in one non-wrapping row; the key wraps only between groups of four
    const row = copy.closest('.copyable-value') as HTMLElement;
    expect(row.querySelectorAll('.copyable-value-group')).toHaveLength(8);
    expect(row.querySelector('.copyable-value-text')?.textContent).toBe('JBSWY3DPEHPK3PXPJBSWY3DPEHPK3PXP');
    fireEvent.click(copy);
    await waitFor(() => expect(writeText).toHaveBeenCalledWith('JBSWY3DPEHPK3PXPJBSWY3DPEHPK3PXP'));
  });

  it('issue 22: "Create a new API key" and "Revoke" are spaced apart (one spaced group), not touching', async () => {
    server.use(
      http.get(apiUrl('ui/userApiKey'), () =>
        HttpResponse.json({ exists: true, createdAt: '2026-11-01T10:00:00Z', lastUsed: null }),
      ),
    );
    renderApp('/admin/artifactory/user_profile');
    const card = await cardOf('API key');
    const create = await within(card).findByRole('button', { name: 'Create a new API key' });
    const revoke = within(card).getByRole('button', { name: 'Revoke' });
    const group = create.closest('.ant-space') as HTMLElement;
    expect(group).toBeTruthy();
    expect(group.contains(revoke)).toBe(true);
    // each in its own spaced item
    expect(create.closest('.ant-space-item')).not.toBe(revoke.closest('.ant-space-item'));
  });

  it('spec 001 §7: the API key comes from GET apiKey/{username} with Basic credentials in the re-authentication header', async () => {
    let header: string | null = null;
    server.use(
      http.get(apiUrl('apiKey/carol'), ({ request }) => {
        header = request.headers.get('X-Granary-Reauthentication');
        return HttpResponse.json({ apiKey: 'grn_api-key-123' });
      }),
    );
    renderApp('/admin/artifactory/user_profile');
    const card = await cardOf('API key');
    fireEvent.change(within(card).getByLabelText('Current password'), { target: { value: 'pässword' } });
    fireEvent.click(within(card).getByRole('button', { name: 'Create API key' }));
    expect(await within(card).findByText('grn_api-key-123')).toBeTruthy();
    const decoded = new TextDecoder().decode(
      Uint8Array.from(atob((header ?? '').replace(/^Basic /, '')), (c) => c.charCodeAt(0)),
    );
    expect(decoded).toBe('carol:pässword');
  });
});
