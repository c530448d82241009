import {
  EVENT_CATALOG,
  WEBHOOK_MESSAGES,
  type WebhookAttempt,
  type WebhookSubscription,
} from '@granary/contracts';
import { fireEvent, screen, waitFor, within } from '@testing-library/react';
import { HttpResponse, http } from 'msw';
import { beforeEach, describe, expect, it } from 'vitest';
import { renderApp } from '../../../shared/test/renderApp.tsx';
import { apiUrl, restUrl, server } from '../../../shared/test/server.ts';
import { userData } from '../../../shared/test/users.ts';

const SUBS = 'event/api/v1/subscriptions';

const subscription = (key: string, extra: Partial<WebhookSubscription> = {}): WebhookSubscription => ({
  key,
  description: '',
  enabled: true,
  event_filter: {
    domain: 'artifact',
    event_types: ['deployed', 'deleted'],
    criteria: {
      anyLocal: true,
      anyRemote: false,
      anyFederated: false,
      repoKeys: [],
      includePatterns: [],
      excludePatterns: [],
    },
  },
  handlers: [
    {
      handler_type: 'webhook',
      url: `https://ci.example.com/${key}`,
      use_secret_for_signing: false,
      custom_http_headers: [],
    },
  ],
  last_delivery: null,
  disabled_reason: null,
  ...extra,
});

let subscriptions: WebhookSubscription[];

beforeEach(() => {
  subscriptions = [subscription('ci-notify')];
  server.use(
    http.get(apiUrl('ui/auth/current'), () => HttpResponse.json(userData())),
    http.get(apiUrl(SUBS), () => HttpResponse.json(subscriptions)),
    http.get(apiUrl(`${SUBS}/:key`), ({ params }) => {
      const found = subscriptions.find((s) => s.key === params.key);
      return found
        ? HttpResponse.json(found)
        : HttpResponse.json(
            { errors: [{ status: 404, code: 'NOT_FOUND', message: 'No such webhook' }] },
            { status: 404 },
          );
    }),
    http.get(apiUrl('event/api/v1/domains'), () => HttpResponse.json(EVENT_CATALOG)),
    http.get(apiUrl('ui/proxies'), () => HttpResponse.json([{ key: 'corp-proxy' }])),
    http.get(restUrl('repositories'), () =>
      HttpResponse.json([
        { key: 'libs-local', type: 'LOCAL', packageType: 'generic', url: '', description: '' },
        { key: 'all', type: 'VIRTUAL', packageType: 'generic', url: '', description: '' },
      ]),
    ),
  );
});

/** Chooses an option of the antd Select labelled `label`. */
async function choose(label: string, option: string) {
  fireEvent.mouseDown(await screen.findByRole('combobox', { name: label }));
  fireEvent.click(await screen.findByTitle(option));
}

/** Fills the new-webhook form with valid values: name, URL, artifact deployed from any local repository. */
async function fillValid(name = 'build-hook', url = 'https://hooks.example.com/granary') {
  fireEvent.change(await screen.findByLabelText('Name'), { target: { value: name } });
  fireEvent.change(screen.getByLabelText('URL'), { target: { value: url } });
  await choose('Event domain', 'Artifacts');
  fireEvent.click(await screen.findByRole('checkbox', { name: 'Artifact was deployed' }));
  fireEvent.click(screen.getByRole('checkbox', { name: 'Any local repository' }));
}

describe('webhooks list (spec 001 §2 configuration/webhooks)', () => {
  it('spec 001 §2: lists name, URL, events and last delivery; the enabled toggle PUTs the subscription without its key', async () => {
    subscriptions = [
      subscription('ci-notify', {
        last_delivery: { id: 'd1', status: 'delivered', response_status: 200, at: '2026-01-02T03:04:05Z' },
      }),
    ];
    let put: { key: string; body: Record<string, unknown> } | undefined;
    server.use(
      http.put(apiUrl(`${SUBS}/:key`), async ({ params, request }) => {
        put = { key: String(params.key), body: (await request.json()) as Record<string, unknown> };
        subscriptions = [{ ...subscriptions[0]!, enabled: false }];
        return HttpResponse.json(subscriptions[0]);
      }),
    );
    renderApp('/admin/configuration/webhooks');
    expect(await screen.findByRole('heading', { level: 1, name: 'Webhooks' })).toBeTruthy();
    const row = (await screen.findByRole('link', { name: 'ci-notify' })).closest('tr')!;
    expect(within(row).getByText('https://ci.example.com/ci-notify')).toBeTruthy();
    expect(within(row).getByText('artifact: deployed, deleted')).toBeTruthy();
    expect(within(row).getByText('delivered (200)')).toBeTruthy();
    fireEvent.click(within(row).getByRole('switch', { name: 'Enable ci-notify' }));
    await waitFor(() => expect(put?.key).toBe('ci-notify'));
    expect(put?.body.key).toBeUndefined();
    expect(put?.body.enabled).toBe(false);
    expect(put?.body.last_delivery).toBeUndefined();
    await waitFor(() => expect(within(row).getByRole('switch').getAttribute('aria-checked')).toBe('false'));
  });

  it('issue 14: with no webhooks, the list invites creating one', async () => {
    subscriptions = [];
    const { router } = renderApp('/admin/configuration/webhooks');
    fireEvent.click(await screen.findByRole('button', { name: /Create a webhook/ }));
    await waitFor(() => expect(router.state.location.pathname).toBe('/ui/admin/configuration/webhooks/new'));
  });

  it('issue 14: delete asks first, naming the webhook', async () => {
    let deleted = '';
    server.use(
      http.delete(apiUrl(`${SUBS}/:key`), ({ params }) => {
        deleted = String(params.key);
        subscriptions = [];
        return new HttpResponse(null, { status: 204 });
      }),
    );
    renderApp('/admin/configuration/webhooks');
    fireEvent.click(await screen.findByRole('button', { name: 'Delete ci-notify' }));
    expect(await screen.findByText('Delete webhook ci-notify?')).toBeTruthy();
    fireEvent.click(screen.getByRole('button', { name: 'Delete' }));
    await waitFor(() => expect(deleted).toBe('ci-notify'));
    expect(await screen.findByText(/No webhooks yet/)).toBeTruthy();
  });

  it('issue 14: a webhook the server disabled (410 Gone) says why', async () => {
    subscriptions = [
      subscription('gone-hook', { enabled: false, disabled_reason: 'The receiver answered 410 Gone.' }),
    ];
    renderApp('/admin/configuration/webhooks');
    expect(await screen.findByText(/The receiver answered 410 Gone\./)).toBeTruthy();
  });

  it('issue 14: the delivery log shows each attempt with its request and response, and redelivers one', async () => {
    const attempt = (n: number, status: number): WebhookAttempt => ({
      id: String(n),
      delivery_id: 'del-1',
      event_id: '42',
      domain: 'artifact',
      event_type: 'deployed',
      test: false,
      attempt: n,
      started_at: '2026-01-02T03:04:05Z',
      duration_ms: 12 + n,
      request: {
        method: 'POST',
        url: 'https://ci.example.com/ci-notify',
        headers: { 'webhook-id': 'del-1', 'x-jfrog-event-auth': '***' },
        body: '{"domain":"artifact","data":{"path":"a/b.txt"}}',
      },
      response: {
        status,
        headers: { 'content-type': 'text/plain' },
        body: status === 200 ? 'thanks' : 'boom',
      },
      error: null,
    });
    let redelivered = '';
    server.use(
      http.get(apiUrl(`${SUBS}/ci-notify/deliveries`), () =>
        HttpResponse.json({ attempts: [attempt(2, 200), attempt(1, 500)] }),
      ),
      http.post(apiUrl(`${SUBS}/ci-notify/deliveries/:id/redeliver`), ({ params }) => {
        redelivered = String(params.id);
        return new HttpResponse(null, { status: 202 });
      }),
    );
    renderApp('/admin/configuration/webhooks');
    fireEvent.click(await screen.findByRole('button', { name: 'Delivery log of ci-notify' }));
    const dialog = await screen.findByRole('dialog');
    expect(await within(dialog).findByText('500')).toBeTruthy();
    expect(within(dialog).getByText('200')).toBeTruthy();
    expect(within(dialog).getByText('13 ms')).toBeTruthy();
    fireEvent.click(within(dialog).getAllByRole('button', { name: /Expand row/i })[0]!);
    expect(await within(dialog).findByText(/"path": "a\/b\.txt"/)).toBeTruthy();
    expect(within(dialog).getByText('thanks')).toBeTruthy();
    fireEvent.click(
      within(dialog).getByRole('button', { name: 'Redeliver attempt 2 of artifact: deployed' }),
    );
    await waitFor(() => expect(redelivered).toBe('del-1'));
  });
});

describe('webhook form (spec 001 §5 validation)', () => {
  it("spec 001 §5: 'This field is mandatory' for the name, the URL and the event domain", async () => {
    renderApp('/admin/configuration/webhooks/new');
    fireEvent.click(await screen.findByRole('button', { name: 'Create Webhook' }));
    expect(await screen.findAllByText(WEBHOOK_MESSAGES.mandatory)).toHaveLength(3);
  });

  it("spec 001 §5: 'Name cannot contain special characters' and 'This name already exist'", async () => {
    renderApp('/admin/configuration/webhooks/new');
    const name = await screen.findByLabelText('Name');
    fireEvent.change(name, { target: { value: 'bad name!' } });
    expect(await screen.findByText(WEBHOOK_MESSAGES.name)).toBeTruthy();
    fireEvent.change(name, { target: { value: '1starts-with-digit' } });
    expect(await screen.findByText(WEBHOOK_MESSAGES.name)).toBeTruthy();
    await screen.findByRole('combobox', { name: 'Event domain' });
    fireEvent.change(name, { target: { value: 'ci-notify' } });
    expect(await screen.findByText(WEBHOOK_MESSAGES.duplicate)).toBeTruthy();
    fireEvent.change(name, { target: { value: 'fine_name-2' } });
    await waitFor(() => expect(screen.queryByText(WEBHOOK_MESSAGES.duplicate)).toBeNull());
    expect(screen.queryByText(WEBHOOK_MESSAGES.name)).toBeNull();
  });

  it("spec 001 §5: 'Enter a valid URL' unless http, https or ftp", async () => {
    renderApp('/admin/configuration/webhooks/new');
    const url = await screen.findByLabelText('URL');
    fireEvent.change(url, { target: { value: 'gopher://example.com/x' } });
    expect(await screen.findByText(WEBHOOK_MESSAGES.url)).toBeTruthy();
    fireEvent.change(url, { target: { value: 'not a url' } });
    expect(await screen.findByText(WEBHOOK_MESSAGES.url)).toBeTruthy();
    fireEvent.change(url, { target: { value: 'ftp://files.example.com/in' } });
    await waitFor(() => expect(screen.queryByText(WEBHOOK_MESSAGES.url)).toBeNull());
  });

  it("spec 001 §5: 'Header must contain name and value'; custom secrets: 'A Secret must contain name', 'A secret name cannot contain special characters'", async () => {
    renderApp('/admin/configuration/webhooks/new');
    await fillValid();
    fireEvent.click(screen.getByRole('button', { name: /Add Header/ }));
    fireEvent.change(await screen.findByLabelText('Header 1 name'), { target: { value: 'X-Team' } });
    fireEvent.click(screen.getByRole('button', { name: 'Create Webhook' }));
    expect(await screen.findByText(WEBHOOK_MESSAGES.header)).toBeTruthy();
    fireEvent.change(screen.getByLabelText('Header 1 value'), { target: { value: 'platform' } });
    await waitFor(() => expect(screen.queryByText(WEBHOOK_MESSAGES.header)).toBeNull());

    fireEvent.click(screen.getByRole('radio', { name: 'Custom' }));
    fireEvent.click(await screen.findByRole('button', { name: /Add Secret/ }));
    fireEvent.click(screen.getByRole('button', { name: 'Create Webhook' }));
    expect(await screen.findByText(WEBHOOK_MESSAGES.secret)).toBeTruthy();
    fireEvent.change(screen.getByLabelText('Secret 1 name'), { target: { value: 'bad name' } });
    expect(await screen.findByText(WEBHOOK_MESSAGES.secretName)).toBeTruthy();
  });

  it("issue 14: creating POSTs Artifactory's subscription JSON; the server's 409 shows 'This name already exist'", async () => {
    const bodies: Record<string, unknown>[] = [];
    server.use(
      http.post(apiUrl(SUBS), async ({ request }) => {
        const body = (await request.json()) as Record<string, unknown>;
        bodies.push(body);
        if (body.key === 'taken')
          return HttpResponse.json(
            { errors: [{ status: 409, code: 'CONFLICT', message: 'Webhook taken exists' }] },
            { status: 409 },
          );
        return HttpResponse.json(body, { status: 201 });
      }),
    );
    const { router } = renderApp('/admin/configuration/webhooks/new');
    await fillValid('taken');
    fireEvent.change(screen.getByLabelText('Authentication secret'), { target: { value: 's3cr3t' } });
    fireEvent.click(screen.getByRole('checkbox', { name: 'Sign payload with secret' }));
    fireEvent.click(screen.getByRole('button', { name: 'Create Webhook' }));
    expect(await screen.findByText(WEBHOOK_MESSAGES.duplicate)).toBeTruthy();
    fireEvent.change(screen.getByLabelText('Name'), { target: { value: 'build-hook' } });
    fireEvent.click(screen.getByRole('button', { name: 'Create Webhook' }));
    await waitFor(() => expect(router.state.location.pathname).toBe('/ui/admin/configuration/webhooks'));
    expect(bodies[1]).toEqual({
      key: 'build-hook',
      description: '',
      enabled: true,
      event_filter: {
        domain: 'artifact',
        event_types: ['deployed'],
        criteria: {
          anyLocal: true,
          anyRemote: false,
          anyFederated: false,
          repoKeys: [],
          includePatterns: [],
          excludePatterns: [],
        },
      },
      handlers: [
        {
          handler_type: 'webhook',
          url: 'https://hooks.example.com/granary',
          secret: 's3cr3t',
          use_secret_for_signing: true,
          custom_http_headers: [],
        },
      ],
    });
  });

  it('issue 14: a domain that has no producer yet is shown disabled with its note', async () => {
    renderApp('/admin/configuration/webhooks/new');
    fireEvent.mouseDown(await screen.findByRole('combobox', { name: 'Event domain' }));
    const option = (
      await screen.findAllByTitle('Granary has no v1 bundles: subscribe to Release bundles.')
    )[0]!.closest('.ant-select-item');
    expect(option?.className).toContain('ant-select-item-option-disabled');
  });

  it('spec 001 §5: selecting all builds warns that chosen builds and patterns are removed', async () => {
    server.use(
      http.get(apiUrl('event/api/v1/domains'), () =>
        HttpResponse.json(EVENT_CATALOG.map((d) => (d.domain === 'build' ? { ...d, available: true } : d))),
      ),
      http.get(apiUrl('ui/builds/names'), () => HttpResponse.json(['app-build', 'lib-build'])),
      http.post(apiUrl('ui/permissiontargets/buildPatterns'), () =>
        HttpResponse.json({ builds: ['app-build'] }),
      ),
    );
    renderApp('/admin/configuration/webhooks/new');
    await choose('Event domain', 'Builds');
    await choose('Builds', 'lib-build');
    const chosen = () =>
      screen.queryAllByTitle('lib-build').filter((el) => !el.closest('.ant-select-dropdown'));
    await waitFor(() => expect(chosen()).toHaveLength(1));
    fireEvent.click(screen.getByRole('checkbox', { name: 'Select all builds' }));
    expect(
      await screen.findByText('Selecting all builds removes the builds and patterns you chose manually.'),
    ).toBeTruthy();
    fireEvent.click(screen.getByRole('button', { name: 'Select all builds' }));
    await waitFor(() =>
      expect((screen.getByRole('checkbox', { name: 'Select all builds' }) as HTMLInputElement).checked).toBe(
        true,
      ),
    );
    // The chosen build is no longer selected (the closed dropdown may still hold its option).
    expect(chosen()).toEqual([]);
  });

  it('issue 14: editing keeps the stored secret (write-only): the placeholder says one is stored and PUT sends "" without the key', async () => {
    subscriptions = [
      subscription('ci-notify', {
        handlers: [
          {
            handler_type: 'webhook',
            url: 'https://ci.example.com/x',
            secret: '',
            use_secret_for_signing: true,
            custom_http_headers: [],
          },
        ],
      }),
    ];
    let put: Record<string, unknown> | undefined;
    server.use(
      http.put(apiUrl(`${SUBS}/ci-notify`), async ({ request }) => {
        put = (await request.json()) as Record<string, unknown>;
        return HttpResponse.json(subscriptions[0]);
      }),
    );
    renderApp('/admin/configuration/webhooks/edit/ci-notify');
    expect(await screen.findByRole('heading', { level: 1, name: 'Edit ci-notify' })).toBeTruthy();
    const secret = await screen.findByLabelText('Authentication secret');
    expect(secret.getAttribute('placeholder')).toBe('A secret is stored; leave empty to keep it');
    expect((secret as HTMLInputElement).value).toBe('');
    fireEvent.change(screen.getByLabelText('Description'), { target: { value: 'CI' } });
    fireEvent.click(screen.getByRole('button', { name: 'Save' }));
    await waitFor(() => expect(put).toBeDefined());
    expect(put?.key).toBeUndefined();
    expect(put?.description).toBe('CI');
    expect((put?.handlers as { secret: string }[] | undefined)?.[0]?.secret).toBe('');
  });
});

describe('webhook test button (spec 001 §8)', () => {
  it(`spec 001 §8: success shows '${WEBHOOK_MESSAGES.testSuccess}', sending the unsaved form`, async () => {
    let sent: Record<string, unknown> | undefined;
    server.use(
      http.post(apiUrl(`${SUBS}/test`), async ({ request }) => {
        sent = (await request.json()) as Record<string, unknown>;
        return HttpResponse.json({ status: 200 });
      }),
    );
    renderApp('/admin/configuration/webhooks/new');
    await fillValid('unsaved');
    fireEvent.click(screen.getByRole('button', { name: /Test/ }));
    expect(await screen.findByText(WEBHOOK_MESSAGES.testSuccess)).toBeTruthy();
    expect(sent?.key).toBe('unsaved');
    expect((sent?.handlers as { url: string }[] | undefined)?.[0]?.url).toBe(
      'https://hooks.example.com/granary',
    );
  });

  it(`spec 001 §8: a 502 or 504 from the receiver shows '${WEBHOOK_MESSAGES.testFailure}' with the reason`, async () => {
    let status = 502;
    server.use(
      http.post(apiUrl(`${SUBS}/test`), () =>
        HttpResponse.json(
          {
            errors: [
              {
                status,
                code: 'UNAVAILABLE',
                message:
                  status === 502
                    ? 'The receiver answered 500 Internal Server Error'
                    : 'The receiver did not answer within 10 s',
              },
            ],
          },
          { status },
        ),
      ),
    );
    renderApp('/admin/configuration/webhooks/new');
    await fillValid();
    fireEvent.click(screen.getByRole('button', { name: /Test/ }));
    expect(await screen.findByText(WEBHOOK_MESSAGES.testFailure)).toBeTruthy();
    expect(screen.getByText('The receiver answered 500 Internal Server Error')).toBeTruthy();
    status = 504;
    fireEvent.click(screen.getByRole('button', { name: /Test/ }));
    expect(await screen.findByText('The receiver did not answer within 10 s')).toBeTruthy();
    expect(screen.getByText(WEBHOOK_MESSAGES.testFailure)).toBeTruthy();
  });

  it(`spec 001 §8: a request that cannot be made shows '${WEBHOOK_MESSAGES.testUnreachable}'`, async () => {
    server.use(http.post(apiUrl(`${SUBS}/test`), () => HttpResponse.error()));
    renderApp('/admin/configuration/webhooks/new');
    await fillValid();
    fireEvent.click(screen.getByRole('button', { name: /Test/ }));
    expect(await screen.findByText(WEBHOOK_MESSAGES.testUnreachable)).toBeTruthy();
  });

  it('spec 001 §8: the test is not sent while the form is invalid', async () => {
    let called = false;
    server.use(
      http.post(apiUrl(`${SUBS}/test`), () => {
        called = true;
        return HttpResponse.json({});
      }),
    );
    renderApp('/admin/configuration/webhooks/new');
    fireEvent.change(await screen.findByLabelText('URL'), { target: { value: 'nope' } });
    fireEvent.click(screen.getByRole('button', { name: /Test/ }));
    expect(await screen.findByText(WEBHOOK_MESSAGES.url)).toBeTruthy();
    expect(called).toBe(false);
  });
});
