import type { ReactNode } from 'react';
import type { RouteObject } from 'react-router';
import { RouteErrorBoundary } from '../components/RouteErrorBoundary.tsx';

/**
 * One screen's route: its element (usually a `lazyPage`) behind its own error boundary, so a page that fails to
 * load or render fails alone; `title` is the route title the shell puts in the document title (spec 000 §2).
 */
export function page(path: string, element: ReactNode, title?: string): RouteObject {
  return {
    path,
    element,
    errorElement: <RouteErrorBoundary />,
    ...(title === undefined ? {} : { handle: { title } }),
  };
}
