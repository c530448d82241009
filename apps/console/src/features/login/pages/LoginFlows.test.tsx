import { ACCESS_MESSAGES } from '@granary/contracts';
import { fireEvent, screen, waitFor, within } from '@testing-library/react';
import { HttpResponse, http } from 'msw';
import { describe, expect, it } from 'vitest';
import { renderApp } from '../../../shared/test/renderApp.tsx';
import { apiUrl, server } from '../../../shared/test/server.ts';
import { userData } from '../../../shared/test/users.ts';

const envelope = (status: number, code: string, message: string) =>
  HttpResponse.json({ errors: [{ status, code, message }] }, { status });
const related = http.get(apiUrl('access/api/ui/security/loginRelatedData'), () =>
  HttpResponse.json({ forgotPassword: true, canRememberMe: true, ssoProviderLink: null }),
);
const version = http.get(apiUrl('system/version'), () =>
  HttpResponse.json({ version: '1.0.0', revision: 'a' }),
);

async function signInAs(mfaStatus: 'VERIFY' | 'ENROLL') {
  server.use(
    related,
    http.post(apiUrl('ui/auth/login'), () => HttpResponse.json(userData({ mfaStatus }))),
  );
  const app = renderApp('/login');
  fireEvent.change(await screen.findByLabelText('Username'), { target: { value: 'admin' } });
  fireEvent.change(screen.getByLabelText('Password'), { target: { value: 'secret' } });
  fireEvent.click(screen.getByRole('button', { name: 'Sign in' }));
  return app;
}

async function enterCode(code: string, button = 'Verify') {
  fireEvent.change(await screen.findByLabelText('Verification code'), { target: { value: code } });
  fireEvent.click(screen.getByRole('button', { name: button }));
}

describe('one-time code (otp-login)', () => {
  it('spec 000 §4: VERIFY goes to the OTP step, which posts {otp, type: GOOGLE} to auth/mfa/verify/{x}', async () => {
    let body: unknown;
    server.use(
      version,
      http.post(apiUrl('auth/mfa/verify/GOOGLE'), async ({ request }) => {
        body = await request.json();
        return HttpResponse.json(userData());
      }),
    );
    const { router } = await signInAs('VERIFY');
    expect(await screen.findByRole('heading', { name: 'Two-step verification' })).toBeTruthy();
    expect(router.state.location.pathname).toBe('/ui/login/otp-login');
    await enterCode('123456');
    await waitFor(() => expect(router.state.location.pathname).toBe('/ui'));
    expect(body).toEqual({ otp: '123456', type: 'GOOGLE' });
  });

  it('spec 000 §8: an OTP failure shows the answer, or "something went wrong"', async () => {
    let answer = () => envelope(401, 'INVALID_OTP', 'Invalid one-time code');
    server.use(http.post(apiUrl('auth/mfa/verify/GOOGLE'), () => answer()));
    await signInAs('VERIFY');
    await enterCode('000000');
    expect(within(await screen.findByRole('alert')).getByText('Invalid one-time code')).toBeTruthy();

    answer = () => HttpResponse.error() as never;
    await enterCode('000001');
    expect(await screen.findByText(ACCESS_MESSAGES.otpFailure)).toBeTruthy();
    expect(ACCESS_MESSAGES.otpFailure).toBe('something went wrong');
  });

  it('spec 000 §8: an OTP answer of 403 returns to login', async () => {
    server.use(http.post(apiUrl('auth/mfa/verify/GOOGLE'), () => envelope(403, 'FORBIDDEN', 'Start again')));
    const { router } = await signInAs('VERIFY');
    await enterCode('123456');
    expect(await screen.findByRole('heading', { name: 'Sign in to Granary' })).toBeTruthy();
    expect(router.state.location.pathname).toBe('/ui/login');
  });

  it('opening otp-login directly (no credentials step) goes back to login', async () => {
    server.use(related);
    const { router } = renderApp('/login/otp-login');
    expect(await screen.findByRole('heading', { name: 'Sign in to Granary' })).toBeTruthy();
    expect(router.state.location.pathname).toBe('/ui/login');
  });
});

describe('MFA enrolment (mfa-enroll)', () => {
  it('spec 000 §4: ENROLL shows the QR code of the otpauth URI from auth/mfa/enroll/{x}, then signs in', async () => {
    server.use(
      version,
      http.get(apiUrl('auth/mfa/enroll/GOOGLE'), () =>
        HttpResponse.json({
          secret: 'JBSWY3DPEHPK3PXP',
          otpauthUri: 'otpauth://totp/Granary:admin?secret=JBSWY3DPEHPK3PXP&issuer=Granary',
          issuer: 'Granary',
          account: 'admin',
        }),
      ),
      http.post(apiUrl('auth/mfa/verify/GOOGLE'), () => HttpResponse.json(userData())),
    );
    const { router } = await signInAs('ENROLL');
    expect(await screen.findByRole('heading', { name: 'Set up two-step verification' })).toBeTruthy();
    expect(router.state.location.pathname).toBe('/ui/login/mfa-enroll');
    expect(await screen.findByText('JBSWY3DPEHPK3PXP')).toBeTruthy();
    expect(document.querySelector('.ant-qrcode')).not.toBeNull();
    await enterCode('123456', 'Verify and sign in');
    await waitFor(() => expect(router.state.location.pathname).toBe('/ui'));
  });
});

describe('forgot password', () => {
  it('spec 000 §8: a failure shows the answer\'s error, or "Email wasn\'t sent"', async () => {
    let answer = () => envelope(400, 'INVALID', 'No mail server is configured');
    server.use(http.post(apiUrl('ui/auth/forgotpassword'), () => answer()));
    renderApp('/login/forgot-password');
    fireEvent.change(await screen.findByLabelText('Username'), { target: { value: 'bob' } });
    fireEvent.click(screen.getByRole('button', { name: 'Send reset link' }));
    expect(await screen.findByText('No mail server is configured')).toBeTruthy();

    answer = () => HttpResponse.error() as never;
    fireEvent.click(screen.getByRole('button', { name: 'Send reset link' }));
    expect(await screen.findByText("Email wasn't sent")).toBeTruthy();
  });

  it('spec 000 §7: posts {user} and shows what the server answered', async () => {
    let body: unknown;
    server.use(
      http.post(apiUrl('ui/auth/forgotpassword'), async ({ request }) => {
        body = await request.json();
        return HttpResponse.json({
          message: 'If the user exists and has an email address, a reset link was sent',
        });
      }),
    );
    renderApp('/login/forgot-password');
    fireEvent.change(await screen.findByLabelText('Username'), { target: { value: 'bob' } });
    fireEvent.click(screen.getByRole('button', { name: 'Send reset link' }));
    expect(await screen.findByText(/a reset link was sent/)).toBeTruthy();
    expect(body).toEqual({ user: 'bob' });
  });
});

describe('reset password', () => {
  it('spec 000 §4: validates the key, resets, and signs in (the /auth/reset-password path)', async () => {
    let resetBody: unknown;
    let key: string | null = null;
    server.use(
      version,
      http.post(apiUrl('validatetoken'), ({ request }) => {
        key = new URL(request.url).searchParams.get('key');
        return HttpResponse.json({ user: 'bob' });
      }),
      http.post(apiUrl('ui/auth/resetpassword'), async ({ request }) => {
        resetBody = await request.json();
        return HttpResponse.json(userData({ name: 'bob', admin: false }));
      }),
    );
    const { router } = renderApp('/auth/reset-password?key=k123');
    expect(await screen.findByText('bob')).toBeTruthy();
    expect(key).toBe('k123');
    fireEvent.change(screen.getByLabelText('New password'), { target: { value: 'N3w-Passw0rd' } });
    fireEvent.change(screen.getByLabelText('Confirm new password'), { target: { value: 'N3w-Passw0rd' } });
    fireEvent.click(screen.getByRole('button', { name: 'Reset password' }));
    await waitFor(() => expect(router.state.location.pathname).toBe('/ui'));
    expect(resetBody).toEqual({ user: 'bob', password: 'N3w-Passw0rd' });
  });

  it('spec 000 §8: a reset failure says "Failed to reset the password"', async () => {
    server.use(
      http.post(apiUrl('validatetoken'), () => HttpResponse.json({ user: 'bob' })),
      http.post(apiUrl('ui/auth/resetpassword'), () => envelope(400, 'WEAK_PASSWORD', 'Too weak')),
    );
    renderApp('/login/reset-password?key=k123');
    fireEvent.change(await screen.findByLabelText('New password'), { target: { value: 'a' } });
    fireEvent.change(screen.getByLabelText('Confirm new password'), { target: { value: 'a' } });
    fireEvent.click(screen.getByRole('button', { name: 'Reset password' }));
    expect(await screen.findByText('Failed to reset the password')).toBeTruthy();
  });

  it('spec 000 §8: an invalid key says "Failed to reset the password"', async () => {
    server.use(
      http.post(apiUrl('validatetoken'), () =>
        envelope(400, 'INVALID_KEY', 'The reset link is invalid or has expired'),
      ),
    );
    renderApp('/login/reset-password?key=bad');
    expect(await screen.findByText('Failed to reset the password')).toBeTruthy();
    expect(screen.getByText('The reset link is invalid or has expired')).toBeTruthy();
    expect(screen.queryByLabelText('New password')).toBeNull();
  });

  it('mismatched passwords are refused before any call', async () => {
    server.use(http.post(apiUrl('validatetoken'), () => HttpResponse.json({ user: 'bob' })));
    renderApp('/login/reset-password?key=k');
    fireEvent.change(await screen.findByLabelText('New password'), { target: { value: 'aaaa' } });
    fireEvent.change(screen.getByLabelText('Confirm new password'), { target: { value: 'bbbb' } });
    fireEvent.click(screen.getByRole('button', { name: 'Reset password' }));
    expect(await screen.findByText(ACCESS_MESSAGES.passwordsDoNotMatch)).toBeTruthy();
  });
});

describe('change password', () => {
  it('spec 000 §7: posts changePassword?prefix=changePassword with userName and the new password twice', async () => {
    let seen: { prefix: string | null; body: unknown } | undefined;
    server.use(
      version,
      http.post(apiUrl('changePassword'), async ({ request }) => {
        seen = { prefix: new URL(request.url).searchParams.get('prefix'), body: await request.json() };
        return HttpResponse.json(userData({ name: 'bob', admin: false }));
      }),
    );
    const { router } = renderApp('/login/change-password?userName=bob');
    fireEvent.change(await screen.findByLabelText('Current password'), { target: { value: 'old' } });
    fireEvent.change(screen.getByLabelText('New password'), { target: { value: 'N3w-Passw0rd' } });
    fireEvent.change(screen.getByLabelText('Confirm new password'), { target: { value: 'N3w-Passw0rd' } });
    fireEvent.click(screen.getByRole('button', { name: 'Change password' }));
    await waitFor(() => expect(router.state.location.pathname).toBe('/ui'));
    expect(seen).toEqual({
      prefix: 'changePassword',
      body: {
        userName: 'bob',
        oldPassword: 'old',
        newPassword1: 'N3w-Passw0rd',
        newPassword2: 'N3w-Passw0rd',
      },
    });
  });

  it('spec 000 §8: a change failure says "Failed to change password"', async () => {
    server.use(
      http.post(apiUrl('changePassword'), () => envelope(400, 'INVALID', 'The current password is wrong')),
    );
    renderApp('/login/change-password?userName=bob');
    fireEvent.change(await screen.findByLabelText('Current password'), { target: { value: 'old' } });
    fireEvent.change(screen.getByLabelText('New password'), { target: { value: 'x' } });
    fireEvent.change(screen.getByLabelText('Confirm new password'), { target: { value: 'x' } });
    fireEvent.click(screen.getByRole('button', { name: 'Change password' }));
    expect(await screen.findByText('Failed to change password')).toBeTruthy();
  });
});
