import type { RouteObject } from 'react-router';
import { lazyPage } from '../../shared/components/microfrontend.ts';
import { page } from '../../shared/routing/page.tsx';

const SecurityPage = lazyPage(() => import('./pages/SecurityPage.tsx'), 'SecurityPage');
const XraySearchPage = lazyPage(() => import('./pages/XraySearchPage.tsx'), 'XraySearchPage');

/**
 * Security & Compliance (spec 000 §2 `security_policies`; issue 16): `/security_policies/{tab}`. Mounted behind the
 * sign-in guard; the admin tabs are hidden from others and every call is checked on the server.
 */
export const securityRoutes: RouteObject[] = [
  page('security_policies/:tab?', <SecurityPage />, 'Security & Compliance'),
  // spec 001 §2: the toolbar's "Xray security and compliance" search results.
  page('xraySearchResults', <XraySearchPage />, 'Security & Compliance search'),
];
