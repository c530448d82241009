import { render, screen } from '@testing-library/react';
import { MemoryRouter } from 'react-router';
import { describe, expect, it } from 'vitest';
import { PACKAGE_MESSAGES } from '../packageRules.ts';
import { PACKAGES_EMPTY, PackagesEmptyState } from './PackagesEmptyState.tsx';

const show = (props: Parameters<typeof PackagesEmptyState>[0]) =>
  render(
    <MemoryRouter>
      <PackagesEmptyState {...props} />
    </MemoryRouter>,
  );

describe('issue 22: the packages table when it has no row', () => {
  it('issue 22: while loading, nothing but the spinner: no "No packages found" under it', () => {
    const { container } = show({ loading: true, readableRepositories: undefined, admin: false });
    expect(container.textContent).toBe('');
    expect(screen.queryByText(PACKAGE_MESSAGES.noPackages)).toBeNull();
  });

  it('issue 22: a user who can read no repository is told so, and to ask an administrator', () => {
    show({ loading: false, readableRepositories: 0, admin: false });
    expect(screen.getByText(PACKAGES_EMPTY.noRepositoryVisible)).toBeTruthy();
    expect(screen.getByText(PACKAGES_EMPTY.askAdministrator)).toBeTruthy();
    expect(PACKAGES_EMPTY.askAdministrator).toMatch(/administrator/);
    expect(screen.queryByText(PACKAGE_MESSAGES.noPackages)).toBeNull();
  });

  it('issue 22: an administrator with no repository yet is offered to create one', () => {
    show({ loading: false, readableRepositories: 0, admin: true });
    expect(screen.getByText(PACKAGES_EMPTY.noRepositoryYet)).toBeTruthy();
    expect(screen.getByRole('link', { name: 'Create a repository' }).getAttribute('href')).toBe(
      '/admin/repositories',
    );
  });

  it('spec 001 §8: with repositories to read and no match, "No packages found, please refine your search criteria"', () => {
    show({ loading: false, readableRepositories: 3, admin: false });
    expect(screen.getByText(PACKAGE_MESSAGES.noPackages)).toBeTruthy();
  });
});
