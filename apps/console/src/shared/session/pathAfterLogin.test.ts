import { PATH_AFTER_LOGIN_VALIDITY_MS, STORAGE_KEYS } from '@granary/contracts';
import { afterEach, describe, expect, it } from 'vitest';
import {
  destinationAfterLogin,
  readPathAfterLogin,
  safeRelativePath,
  savePathAfterLogin,
} from './pathAfterLogin.ts';

afterEach(() => sessionStorage.clear());

describe('path after login', () => {
  it('spec 000 §4, §9: the requested path is kept in session storage under path_after_login', () => {
    savePathAfterLogin('/admin/management/users?x=1', { now: 1_000 });
    const stored = JSON.parse(sessionStorage.getItem(STORAGE_KEYS.pathAfterLogin) ?? '{}');
    expect(stored).toEqual({
      path: '/admin/management/users?x=1',
      expiresAt: 1_000 + PATH_AFTER_LOGIN_VALIDITY_MS,
    });
    expect(STORAGE_KEYS.pathAfterLogin).toBe('path_after_login');
  });

  it('spec 000 §9: the stored path is valid for 1 hour, then ignored and removed', () => {
    savePathAfterLogin('/packages', { now: 0 });
    expect(readPathAfterLogin({ admin: false, now: 60 * 60 * 1000 - 1 })).toBe('/packages');
    expect(readPathAfterLogin({ admin: false, now: 60 * 60 * 1000 })).toBeNull();
    expect(sessionStorage.getItem('path_after_login')).toBeNull();
  });

  it('spec 000 §4: reserved login-area paths are ignored unless forced', () => {
    savePathAfterLogin('/login/otp-login');
    expect(sessionStorage.getItem('path_after_login')).toBeNull();
    savePathAfterLogin('/auth/reset-password?key=1');
    expect(sessionStorage.getItem('path_after_login')).toBeNull();
    savePathAfterLogin('/login/cli-registration', { force: true });
    expect(readPathAfterLogin({ admin: true })).toBe('/login/cli-registration');
  });

  it('spec 000 §4: admin-only paths are ignored for non-admins, the profile is not admin-only', () => {
    savePathAfterLogin('/admin/management/users');
    expect(readPathAfterLogin({ admin: false })).toBeNull();
    savePathAfterLogin('/admin/management/users');
    expect(readPathAfterLogin({ admin: true })).toBe('/admin/management/users');
    savePathAfterLogin('/admin/artifactory/user_profile');
    expect(readPathAfterLogin({ admin: false })).toBe('/admin/artifactory/user_profile');
  });

  it('spec 000 §2: /login?redirectTo= honours only same-origin relative paths', () => {
    expect(safeRelativePath('/admin/management/users?tab=1#top')).toBe('/admin/management/users?tab=1#top');
    for (const hostile of [
      'https://evil.example/',
      '//evil.example/x',
      '/\\evil.example',
      'javascript:alert(1)',
      'evil.example',
      '/%0d%0aLocation',
      '\t/x',
      '',
    ]) {
      const safe = safeRelativePath(hostile);
      if (safe !== null) expect(safe.startsWith('/') && !safe.startsWith('//')).toBe(true);
      if (hostile !== '/%0d%0aLocation') expect(safe, hostile).toBeNull();
    }
  });

  it('after login: a safe redirectTo wins over the stored path; a hostile one falls back to it, then home', () => {
    savePathAfterLogin('/admin/management/groups');
    expect(destinationAfterLogin({ redirectTo: '/admin/management/users', admin: true })).toBe(
      '/admin/management/users',
    );
    savePathAfterLogin('/admin/management/groups');
    expect(destinationAfterLogin({ redirectTo: 'https://evil.example', admin: true })).toBe(
      '/admin/management/groups',
    );
    expect(destinationAfterLogin({ redirectTo: '//evil.example', admin: true })).toBe('/');
    expect(destinationAfterLogin({ redirectTo: '/ui/admin/management/users', admin: true })).toBe(
      '/admin/management/users',
    );
    expect(destinationAfterLogin({ redirectTo: '/login', admin: true })).toBe('/');
    expect(destinationAfterLogin({ redirectTo: '/admin/management/users', admin: false })).toBe('/');
  });
});

describe('resumable login pages', () => {
  it('spec 000 §4 "unless forced": /login/cli-registration is returned to after sign-in; other login pages are not', () => {
    expect(destinationAfterLogin({ redirectTo: '/login/cli-registration?session=abc', admin: false })).toBe(
      '/login/cli-registration?session=abc',
    );
    expect(destinationAfterLogin({ redirectTo: '/login/invitation?token=abc', admin: false })).toBe('/');
  });
});
