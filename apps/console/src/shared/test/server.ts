import { entitlementsFor, FEATURE_FLAG_DEFAULTS, type GeneralConfig } from '@granary/contracts';
import { HttpResponse, http } from 'msw';
import { setupServer } from 'msw/node';

export const apiUrl = (path: string) => `http://localhost/ui/api/v1/${path}`;
export const restUrl = (path: string) => `http://localhost/api/${path}`;

/** The answer of `GET ui/auth/current` for a visitor nobody signed in as (the default of every test). */
export const anonymousCurrentUser = http.get(apiUrl('ui/auth/current'), () =>
  HttpResponse.json({ errors: [{ status: 401, code: 'UNAUTHORIZED', message: 'Sign in' }] }, { status: 401 }),
);

export function generalConfig(overrides: Partial<GeneralConfig> = {}): GeneralConfig {
  return {
    serverName: 'Granary',
    logoUrl: null,
    footer: { text: '', logoUrl: null },
    helpLinksEnabled: true,
    anonymousAccessAllowed: false,
    dateFormat: 'yyyy-MM-dd HH:mm:ss',
    flavour: { cloud: false, trial: false, freeTier: false, lightweight: false, registryOnly: false },
    licenseType: 'ENTERPRISE_PLUS',
    ...overrides,
  };
}

/** spec 000 §4 start-up calls answered as a fresh self-hosted install with its built-in licence answers them. */
export const startupHandlers = [
  http.get(apiUrl('ui/generalConfig'), () => HttpResponse.json(generalConfig())),
  http.get(apiUrl('system/ismicroserviceenabled'), () =>
    HttpResponse.json({
      artifactory: true,
      access: true,
      xray: false,
      distribution: false,
      mc: false,
      pipelines: false,
    }),
  ),
  http.get(apiUrl('jfconnect/entitlements'), () =>
    HttpResponse.json({
      licenseType: 'ENTERPRISE_PLUS',
      rank: 5,
      entitlements: entitlementsFor('ENTERPRISE_PLUS'),
    }),
  ),
  http.get(apiUrl('system/featuresConfig'), () => HttpResponse.json(FEATURE_FLAG_DEFAULTS)),
  http.get(apiUrl('system/version'), () => HttpResponse.json({ version: '1.0.0', revision: 'test' })),
  http.get(apiUrl('system/licenses'), () =>
    HttpResponse.json({
      type: 'ENTERPRISE_PLUS',
      rank: 5,
      source: 'builtin',
      licensedTo: 'Granary',
      id: 'builtin',
      validThrough: null,
      expired: false,
      reason: null,
    }),
  ),
  http.get(apiUrl('system/onboarding'), () => HttpResponse.json({ completed: false, completedAt: null })),
  http.get(apiUrl('system/loginConfig'), () =>
    HttpResponse.json({ ssoLoginUrl: null, autoRedirectLogin: false, samlLogoutUrl: null }),
  ),
  http.get(apiUrl('projects'), () => HttpResponse.json([])),
  // issue 20: no single sign-on provider configured.
  http.get(apiUrl('sso/loginState'), () =>
    HttpResponse.json({
      oauthProviders: [],
      ssoProviderLink: null,
      ssoProviderLinkSAML: null,
      samlLogoutUrl: null,
      ldapEnabled: false,
      isAutoRedirectLogin: false,
    }),
  ),
];

/** The MSW server the console tests answer requests with; each test adds the handlers it needs. */
export const server = setupServer(anonymousCurrentUser, ...startupHandlers);
