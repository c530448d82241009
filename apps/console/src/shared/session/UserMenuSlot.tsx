import { lazy, Suspense } from 'react';

const UserMenu = lazy(() => import('./UserMenu.tsx').then((m) => ({ default: m.UserMenu })));

/**
 * The user menu, loaded on demand: its Dropdown and Menu are not needed by the login page, whose first load
 * stays small (DESIGN.md: first-load JavaScript < 300 KB gzip).
 */
export function UserMenuSlot() {
  return (
    <Suspense fallback={null}>
      <UserMenu />
    </Suspense>
  );
}
