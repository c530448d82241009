import { z } from 'zod';

/**
 * Single sign-on providers (issue 20; spec 000 §2 `sso/{ssoLoginType}` and `/auth-provider/{type}`,
 * §3 login state `oauthProviders` {name, type, url, icon}, `ssoProviderLinkSAML`, `samlLogoutUrl`,
 * §4 auto-redirect, §6 API key with an empty password for OAuth users, §7 calls).
 *
 * A provider is one of `oidc`, `oauth2`, `saml`, `ldap`, `http` with the common fields below. Its secret
 * fields (`clientSecret`, `bindPassword`, `spPrivateKey`) are write-only: a save with the field absent or
 * `""` keeps the stored value, `null` removes it; every answer carries `""` and `{field}Set`.
 */

export const SSO_PROVIDER_TYPES = ['oidc', 'oauth2', 'saml', 'ldap', 'http'] as const;
export type SsoProviderType = (typeof SSO_PROVIDER_TYPES)[number];

/** The realm a user signed in through a provider gets (spec 000 §3: `saml`, `oauth`; also `ldap`, `http`). */
export const SSO_REALMS = ['oauth', 'saml', 'ldap', 'http'] as const;
export type SsoRealm = (typeof SSO_REALMS)[number];

export const SSO_REALM_OF: Record<SsoProviderType, SsoRealm> = {
  oidc: 'oauth',
  oauth2: 'oauth',
  saml: 'saml',
  ldap: 'ldap',
  http: 'http',
};

/** The write-only fields of each type. */
export const SSO_SECRET_FIELDS = {
  oidc: ['clientSecret'],
  oauth2: ['clientSecret'],
  saml: ['spPrivateKey'],
  ldap: ['bindPassword'],
  http: [],
} as const satisfies Record<SsoProviderType, readonly string[]>;

/** A provider key: lower-case letters, digits, `-`, `_`, a letter or digit first (at most 64). */
export const SSO_PROVIDER_KEY_PATTERN = /^[a-z0-9][a-z0-9_-]{0,63}$/;

export const SSO_MESSAGES = {
  key: 'A provider key is lower-case letters, digits, "-" or "_", starting with a letter or digit',
  mandatory: 'This field is mandatory',
  samlMetadata: 'Give the identity provider metadata: its URL or its XML',
  ldapUrl: 'An LDAP URL starts with ldap:// or ldaps://',
  unknownProvider: 'No such single sign-on provider',
  providerDisabled: 'This single sign-on provider is disabled',
  userDisabled: 'This user is disabled: ask an administrator',
  unknownUser:
    'There is no Granary user with this name and this provider does not create users: ask an administrator',
  localUserExists:
    'A local Granary user already has this name: an administrator must link or rename it before single sign-on can use it',
  noUsername: 'The identity provider did not send a user name',
  signInFailed: 'Single sign-on failed',
  expiredState: 'The sign-in took too long or was already used: start again',
  crowdUnsupported:
    'Atlassian Crowd is not supported: Atlassian ended Crowd support in 2024. Use LDAP, SAML 2.0 or OpenID Connect',
  httpSsoOff: 'HTTP single sign-on is not enabled',
} as const;

const key = z.string().regex(SSO_PROVIDER_KEY_PATTERN, SSO_MESSAGES.key);
const httpUrl = z.url({ protocol: /^https?$/ }).max(2000);
const secretWrite = z.string().max(16_384).nullable().optional();
const name = z.string().trim().min(1, SSO_MESSAGES.mandatory).max(128);
const claim = z.string().trim().min(1).max(256);

/** How the identity provider's answer becomes a Granary user. */
export const ssoMappingSchema = z.object({
  /** OIDC claim / SAML attribute / LDAP attribute / user-info field carrying the user name. */
  usernameClaim: claim.default('preferred_username'),
  emailClaim: claim.default('email'),
  groupsClaim: claim.default('groups'),
  /** Create the Granary groups the user is in that do not exist yet (else they are ignored). */
  createMissingGroups: z.boolean().default(false),
  /** Membership of one of these (identity provider) groups makes the user an administrator. */
  adminGroups: z.array(z.string().trim().min(1).max(256)).max(100).default([]),
});
export type SsoMapping = z.infer<typeof ssoMappingSchema>;

const common = {
  key,
  name,
  enabled: z.boolean().default(true),
  /** The provider the login page's SSO link and auto-redirect use (at most one; saving one clears the others). */
  isDefault: z.boolean().default(false),
  /** With `isDefault`: the login page sends visitors straight to this provider (the `?local=true` escape hatch stays). */
  autoRedirect: z.boolean().default(false),
  /** Create the user on the first sign-in (realm recorded, no local password); off: only existing users. */
  autoCreateUsers: z.boolean().default(true),
  mapping: ssoMappingSchema.default({
    usernameClaim: 'preferred_username',
    emailClaim: 'email',
    groupsClaim: 'groups',
    createMissingGroups: false,
    adminGroups: [],
  }),
};

/**
 * The login page's link type for OAuth-style providers (spec 000 §3: icon from the lower-cased type),
 * e.g. `GitHub`, `Google`, `Okta`; default `OpenID` (oidc) or `OAuth2` (oauth2).
 */
const brand = z
  .string()
  .trim()
  .regex(/^[A-Za-z0-9 ._-]{1,40}$/)
  .optional();

const oidcFields = {
  type: z.literal('oidc'),
  ...common,
  /** The issuer; its `/.well-known/openid-configuration` is read (discovery). */
  issuer: httpUrl,
  clientId: z.string().trim().min(1, SSO_MESSAGES.mandatory).max(512),
  scopes: z.array(z.string().trim().min(1).max(128)).max(50).default(['openid', 'profile', 'email']),
  usePkce: z.boolean().default(true),
  brand,
};
const oauth2Fields = {
  type: z.literal('oauth2'),
  ...common,
  authorizationUrl: httpUrl,
  tokenUrl: httpUrl,
  userInfoUrl: httpUrl,
  clientId: z.string().trim().min(1, SSO_MESSAGES.mandatory).max(512),
  scopes: z.array(z.string().trim().min(1).max(128)).max(50).default([]),
  brand,
};
const samlFields = {
  type: z.literal('saml'),
  ...common,
  idpMetadataUrl: httpUrl.nullable().optional(),
  idpMetadataXml: z.string().max(1_000_000).nullable().optional(),
  /** This server's entity id (default: its metadata URL). */
  spEntityId: z.string().trim().max(2000).optional(),
  /** SP signing certificate (PEM); the private key is `spPrivateKey` (write-only). */
  spCertificatePem: z.string().max(20_000).nullable().optional(),
  signAuthnRequest: z.boolean().default(true),
  /** Always true: an unsigned assertion is refused. */
  wantAssertionsSigned: z.literal(true).default(true),
  allowIdpInitiated: z.boolean().default(false),
  /** Where a SAML user goes after signing out (spec 000 §4, `GET /auth/saml/samlLogoutUrl`). */
  logoutUrl: httpUrl.nullable().optional(),
};
const ldapFields = {
  type: z.literal('ldap'),
  ...common,
  url: z
    .string()
    .trim()
    .max(2000)
    .regex(/^ldaps?:\/\/[^\s]+$/i, SSO_MESSAGES.ldapUrl),
  startTls: z.boolean().default(false),
  /** The search user's DN (empty: anonymous search). */
  bindDn: z.string().max(1024).default(''),
  userSearchBase: z.string().trim().min(1, SSO_MESSAGES.mandatory).max(1024),
  /** `{0}` is the (escaped) user name. */
  userSearchFilter: z.string().trim().min(1).max(1024).default('(uid={0})'),
  groupSearchBase: z.string().max(1024).default(''),
  /** `{0}` the user's DN, `{1}` the user name. Empty: groups come from `groupMemberAttribute`. */
  groupSearchFilter: z.string().max(1024).default(''),
  /** The user's attribute listing its groups' DNs (e.g. `memberOf`). */
  groupMemberAttribute: z.string().max(256).default('memberOf'),
  emailAttribute: z.string().max(256).default('mail'),
  timeoutMs: z.number().int().min(100).max(120_000).default(5000),
  tlsCaPem: z.string().max(100_000).nullable().optional(),
};
const httpFields = {
  type: z.literal('http'),
  ...common,
  /** The header the trusted reverse proxy sets to the signed-in user's name. */
  header: z
    .string()
    .trim()
    .regex(/^[A-Za-z0-9-]{1,128}$/)
    .default('X-Remote-User'),
  emailHeader: z
    .string()
    .trim()
    .regex(/^[A-Za-z0-9-]{1,128}$/)
    .optional(),
  /** Comma-separated group names. */
  groupsHeader: z
    .string()
    .trim()
    .regex(/^[A-Za-z0-9-]{1,128}$/)
    .optional(),
};

/** What an admin sends (`PUT ui/api/v1/sso/providers/{key}`); `key` in the body is optional (the path wins). */
export const ssoProviderWriteSchema = z
  .discriminatedUnion('type', [
    z.object({ ...oidcFields, key: key.optional(), clientSecret: secretWrite }),
    z.object({ ...oauth2Fields, key: key.optional(), clientSecret: secretWrite }),
    z.object({ ...samlFields, key: key.optional(), spPrivateKey: secretWrite }),
    z.object({ ...ldapFields, key: key.optional(), bindPassword: secretWrite }),
    z.object({ ...httpFields, key: key.optional() }),
  ])
  .superRefine((value, ctx) => {
    if (value.type === 'saml' && !value.idpMetadataUrl && !value.idpMetadataXml)
      ctx.addIssue({ code: 'custom', message: SSO_MESSAGES.samlMetadata, path: ['idpMetadataUrl'] });
  });
export type SsoProviderWrite = z.input<typeof ssoProviderWriteSchema>;
export type SsoProviderWriteParsed = z.output<typeof ssoProviderWriteSchema>;

const masked = z.literal('');
const stamps = { createdAt: z.string(), updatedAt: z.string() };

/** A provider as every answer shows it: secrets never, only whether each is set. */
export const ssoProviderSchema = z.discriminatedUnion('type', [
  z.object({ ...oidcFields, ...stamps, clientSecret: masked, clientSecretSet: z.boolean() }),
  z.object({ ...oauth2Fields, ...stamps, clientSecret: masked, clientSecretSet: z.boolean() }),
  z.object({ ...samlFields, ...stamps, spPrivateKey: masked, spPrivateKeySet: z.boolean() }),
  z.object({ ...ldapFields, ...stamps, bindPassword: masked, bindPasswordSet: z.boolean() }),
  z.object({ ...httpFields, ...stamps }),
]);
export type SsoProvider = z.infer<typeof ssoProviderSchema>;

export const ssoProviderListSchema = z.object({ providers: z.array(ssoProviderSchema) });

/** What a test sign-in shows (nothing is created): the mapped user. Posted to `window.opener`. */
export const ssoTestResultSchema = z.object({
  ok: z.boolean(),
  provider: z.string(),
  realm: z.enum(SSO_REALMS),
  username: z.string().nullable(),
  email: z.string().nullable(),
  groups: z.array(z.string()),
  admin: z.boolean(),
  /** The identity provider's raw claims / attributes (for choosing the mapping), secrets excluded. */
  claims: z.record(z.string(), z.unknown()).optional(),
  error: z.string().optional(),
});
export type SsoTestResult = z.infer<typeof ssoTestResultSchema>;
/** The `postMessage` envelope the test page sends to `window.opener`. */
export const SSO_TEST_MESSAGE_TYPE = 'granary.sso.test';

// The login page's part (the provider links and the login state) is in sso-login-state.ts: the login route
// loads it alone, without the provider schemas (its JavaScript budget).
export * from './sso-login-state.ts';

/** The icon name of a login link: the lower-cased type (spec 000 §3). */
export function ssoIconOf(type: string): string {
  return type.toLowerCase();
}
