import { isValidElement } from 'react';
import { describe, expect, it } from 'vitest';
import { RouteErrorBoundary } from '../components/RouteErrorBoundary.tsx';
import { page } from './page.tsx';

describe('issue 13 §7: one page() route helper', () => {
  it('a page route has its element behind its own error boundary, and the title the shell shows', () => {
    const element = <p>Packages</p>;
    const route = page('packages/:packageId?', element, 'Packages');
    expect(route.path).toBe('packages/:packageId?');
    expect(route.element).toBe(element);
    expect(isValidElement(route.errorElement) && route.errorElement.type).toBe(RouteErrorBoundary);
    expect(route.handle).toEqual({ title: 'Packages' });
  });

  it('without a title there is no handle (the page titles itself)', () => {
    expect('handle' in page('admin/management/users', <p />)).toBe(false);
  });
});
