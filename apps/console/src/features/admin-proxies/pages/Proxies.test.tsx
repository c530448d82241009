import { PROXY_MESSAGES, type ProxyInfo } from '@granary/contracts';
import { fireEvent, screen, waitFor, within } from '@testing-library/react';
import { HttpResponse, http } from 'msw';
import { beforeEach, describe, expect, it } from 'vitest';
import { renderApp } from '../../../shared/test/renderApp.tsx';
import { apiUrl, server } from '../../../shared/test/server.ts';
import { userData } from '../../../shared/test/users.ts';

const proxy = (key: string, extra: Partial<ProxyInfo> = {}): ProxyInfo => ({
  key,
  host: `${key}.example.com`,
  port: 3128,
  username: 'svc',
  password: '',
  passwordSet: true,
  ntHost: '',
  domain: '',
  defaultProxy: false,
  redirectToHosts: [],
  ...extra,
});

const settings = {
  webServerType: 'nginx',
  serverName: 'repo.example.com',
  dockerReverseProxyMethod: 'repoPathPrefix',
  reverseProxyRepositories: [],
  useHttps: false,
  useHttp: true,
  httpsPort: 443,
  httpPort: 80,
  sslCertificate: '',
  sslKey: '',
  upstreamUrl: 'http://127.0.0.1:8080',
};

let proxies: ProxyInfo[];

beforeEach(() => {
  proxies = [proxy('corp', { defaultProxy: true }), proxy('lab')];
  server.use(
    http.get(apiUrl('ui/auth/current'), () => HttpResponse.json(userData())),
    http.get(apiUrl('ui/proxies'), () => HttpResponse.json(proxies)),
    http.get(apiUrl('ui/proxies/:key'), ({ params }) => {
      const found = proxies.find((p) => p.key === params.key);
      return found
        ? HttpResponse.json(found)
        : HttpResponse.json(
            { errors: [{ status: 404, code: 'NOT_FOUND', message: 'No proxy' }] },
            { status: 404 },
          );
    }),
    http.get(apiUrl('ui/reverseProxies'), () => HttpResponse.json(settings)),
    http.get(apiUrl('ui/reverseProxies/snippet'), () =>
      HttpResponse.json({
        webServerType: 'nginx',
        snippet: 'server {\n    server_name repo.example.com;\n}\n',
      }),
    ),
  );
});

describe('proxies (spec 000 §2 proxies/configuration)', () => {
  it('issue 15: lists the proxies with the default marked', async () => {
    renderApp('/admin/proxies/configuration');
    expect(await screen.findByRole('heading', { level: 1, name: 'Proxies' })).toBeTruthy();
    const corp = (await screen.findByRole('link', { name: 'corp' })).closest('tr')!;
    expect(within(corp).getByText('Default')).toBeTruthy();
    expect(within(corp).getByText('corp.example.com:3128')).toBeTruthy();
    const lab = screen.getByRole('link', { name: 'lab' }).closest('tr')!;
    expect(within(lab).queryByText('Default')).toBeNull();
  });

  it('issue 15: the edit form never shows the password; left empty, the PUT keeps the stored one', async () => {
    let body: Record<string, unknown> | undefined;
    server.use(
      http.put(apiUrl('ui/proxies/:key'), async ({ request }) => {
        body = (await request.json()) as Record<string, unknown>;
        return HttpResponse.json(proxies[0]);
      }),
    );
    renderApp('/admin/proxies/configuration/edit/corp');
    const password = (await screen.findByLabelText('Password')) as HTMLInputElement;
    expect(password.value).toBe('');
    expect(screen.getByText('A password is stored. Leave this empty to keep it.')).toBeTruthy();
    fireEvent.change(screen.getByLabelText('Port'), { target: { value: '8080' } });
    fireEvent.click(screen.getByRole('button', { name: 'Save' }));
    await waitFor(() => expect(body).toBeDefined());
    expect(body).toMatchObject({
      key: 'corp',
      host: 'corp.example.com',
      port: 8080,
      password: '',
      defaultProxy: true,
    });
  });

  it('issue 15: the new-proxy form checks key, host and port with the contracts messages and refuses a taken name', async () => {
    let posted = false;
    server.use(
      http.post(apiUrl('ui/proxies'), () => {
        posted = true;
        return HttpResponse.json({}, { status: 500 });
      }),
    );
    renderApp('/admin/proxies/configuration/new');
    fireEvent.change(await screen.findByLabelText('Proxy key'), { target: { value: 'CORP' } });
    fireEvent.change(screen.getByLabelText('Host'), { target: { value: 'http://x' } });
    fireEvent.change(screen.getByLabelText('Port'), { target: { value: '70000' } });
    fireEvent.click(screen.getByRole('button', { name: 'Create' }));
    expect(await screen.findByText(PROXY_MESSAGES.duplicate)).toBeTruthy();
    expect(await screen.findByText(PROXY_MESSAGES.host)).toBeTruthy();
    expect(await screen.findByText(PROXY_MESSAGES.port)).toBeTruthy();
    expect(posted).toBe(false);
  });

  it('spec 001 §3: the reverse proxy tab shows the settings and the generated nginx configuration', async () => {
    renderApp('/admin/proxies/configuration?tab=reverse-proxy');
    expect(((await screen.findByLabelText('Server name')) as HTMLInputElement).value).toBe(
      'repo.example.com',
    );
    const snippet = (await screen.findByLabelText('nginx configuration')) as HTMLTextAreaElement;
    expect(snippet.value).toContain('server_name repo.example.com;');
    expect(screen.getByRole('button', { name: /Copy/ })).toBeTruthy();
  });
});
