import { Navigate, type RouteObject } from 'react-router';
import { lazyPage } from '../../shared/components/microfrontend.ts';
import { page } from '../../shared/routing/page.tsx';

const WebhooksPage = lazyPage(() => import('./pages/WebhooksPage.tsx'), 'WebhooksPage');
const WebhookFormPage = lazyPage(() => import('./pages/WebhookFormPage.tsx'), 'WebhookFormPage');

/**
 * spec 001 §2 admin area: configuration/webhooks (list, new, edit/{webhookName}). Mounted behind the sign-in and
 * admin guards; the server checks admin on every call too.
 */
export const adminWebhooksRoutes: RouteObject[] = [
  page('admin/configuration/webhooks', <WebhooksPage />, 'Webhooks'),
  page('admin/configuration/webhooks/new', <WebhookFormPage />, 'New Webhook'),
  page('admin/configuration/webhooks/edit/:webhookName', <WebhookFormPage />, 'Edit Webhook'),
  {
    path: 'admin/configuration/webhooks/edit',
    element: <Navigate to="/admin/configuration/webhooks" replace />,
  },
];
