import { z } from 'zod';

// Application integrations — OAuth 2.0 applications (issue 18, spec 001 §3 "Application
// integration", §5, §7 "Application integrations", §8). Admins register an application; Granary
// issues a client id and a secret shown once. Behind it Granary is an OAuth 2.0 authorization
// server (authorization code + PKCE S256, consent in the console, rotating refresh tokens, RFC 7009
// revocation); the tokens it issues are Granary access tokens acting for the user.
//
// Console API (all under `/ui/api/v1/`):
//   POST   integrations/applications                                  create → ApplicationCreated (secret once)
//   GET    integrations/applications                                  list → Application[]   (admin)
//   DELETE integrations/applications/{id}                             delete (admin)
//   GET    integrations/applications/validate/{id}                    → ApplicationValidate {auth_url}
//   GET    integrations/applications/client-data/{id}                 → ApplicationClientData
//   GET    integrations/applications/consent/{requestId}              → ConsentRequest (the signed-in user's pending request)
//   POST   integrations/applications/authorize/{clientId}/{username}  body {requestId} → {url} approve; the console navigates to url
//   POST   integrations/applications/consent/{requestId}/deny         → {url} (redirect with error=access_denied)
//   GET    integrations/applications/user-integrations/{username}     → UserIntegration[] (the user or an admin)
//   DELETE integrations/applications/user-integrations/{clientId}/{username}  revoke (the user or an admin)
//
// OAuth 2.0 endpoints (for the third-party application): `/access/api/v1/oauth2/authorize`,
// `/access/api/v1/oauth2/token`, `/access/api/v1/oauth2/revoke`; metadata (RFC 8414) at
// `/.well-known/oauth-authorization-server`. The authorize endpoint sends the browser to the
// console's consent screen: `/ui/oauth/consent?request={requestId}`.

export const APPLICATIONS_API = 'integrations/applications';
/** The console route the authorization endpoint redirects the browser to (`?request={requestId}`). */
export const OAUTH_CONSENT_ROUTE = '/ui/oauth/consent';
export const OAUTH_PATHS = {
  authorize: '/access/api/v1/oauth2/authorize',
  token: '/access/api/v1/oauth2/token',
  revoke: '/access/api/v1/oauth2/revoke',
  metadata: '/.well-known/oauth-authorization-server',
} as const;

/** Spec 001 §5 and §8. */
export const APPLICATION_MESSAGES = {
  name: 'Name cannot contain spaces or special characters',
  mandatory: 'This field is mandatory',
  duplicate: 'This name already exist',
  url: 'Enter a valid URL',
  created: (name: string) => `Successfully created integration ${name}`,
  deleteConfirm: (name: string) => `This will permanently delete the Integration ${name}. Continue?`,
  deleted: (name: string) => `Successfully deleted integration ${name}`,
  secretNotice:
    'The secret is currently visible and will not be retrievable at a later stage as it is not saved in the system.',
} as const;

/** Letters, digits, `_`, `-` and `.`; no spaces or other characters (spec 001 §5). */
export const APPLICATION_NAME_PATTERN = /^[A-Za-z0-9_.-]+$/;

/** Application types a console may offer; free text is refused. */
export const APPLICATION_TYPES = ['web', 'native', 'cli', 'ci', 'other'] as const;
export type ApplicationType = (typeof APPLICATION_TYPES)[number];

/**
 * Scopes an application may ask for. They are Granary's own access-token scopes
 * (`applied-permissions/user` = the user's current rights, never admin; `granary/read-only`
 * narrows to reads). Default when the request names none: `applied-permissions/user`.
 */
export const APPLICATION_SCOPES = ['applied-permissions/user', 'granary/read-only'] as const;
export const APPLICATION_DEFAULT_SCOPE = 'applied-permissions/user';

const httpUrl = z
  .string()
  .trim()
  .min(1, APPLICATION_MESSAGES.mandatory)
  .max(2048)
  .refine((v) => {
    try {
      const u = new URL(v);
      return (u.protocol === 'http:' || u.protocol === 'https:') && !u.hash;
    } catch {
      return false;
    }
  }, APPLICATION_MESSAGES.url);

/** The shared name validator (console form and server). */
export const applicationNameSchema = z
  .string()
  .trim()
  .min(1, APPLICATION_MESSAGES.mandatory)
  .max(64)
  .regex(APPLICATION_NAME_PATTERN, APPLICATION_MESSAGES.name);

/** `POST integrations/applications` body (the console form; Client ID and Secret are Granary's to issue). */
export const applicationCreateSchema = z.strictObject({
  name: applicationNameSchema,
  type: z.enum(APPLICATION_TYPES, { message: APPLICATION_MESSAGES.mandatory }),
  description: z.string().trim().max(1024).optional().default(''),
  /** The redirect URI the authorization code is sent to (exact match). */
  callbackUrl: httpUrl,
  /** The application's own base URL (shown to the user on the consent screen). */
  platformBaseUrl: httpUrl,
});
export type ApplicationCreate = z.input<typeof applicationCreateSchema>;

export const applicationSchema = z.object({
  id: z.string(),
  name: z.string(),
  type: z.enum(APPLICATION_TYPES),
  description: z.string(),
  callbackUrl: z.string(),
  platformBaseUrl: z.string(),
  clientId: z.string(),
  /** ISO 8601. */
  createdOn: z.string(),
});
export type Application = z.infer<typeof applicationSchema>;
export const applicationListSchema = z.array(applicationSchema);

/** Create answer: the client secret is here once and never again (stored only as a hash). */
export const applicationCreatedSchema = applicationSchema.extend({
  clientSecret: z.string(),
});
export type ApplicationCreated = z.infer<typeof applicationCreatedSchema>;

/** `GET validate/{id}`: where the application sends a user to start the flow. */
export const applicationValidateSchema = z.object({
  id: z.string(),
  valid: z.boolean(),
  /** The authorization endpoint with client_id, redirect_uri and response_type=code filled in. */
  auth_url: z.string(),
});
export type ApplicationValidate = z.infer<typeof applicationValidateSchema>;

/** `GET client-data/{id}`: what the application needs to be configured (no secret). */
export const applicationClientDataSchema = z.object({
  id: z.string(),
  name: z.string(),
  client_id: z.string(),
  redirect_uri: z.string(),
  platform_base_url: z.string(),
  authorization_endpoint: z.string(),
  token_endpoint: z.string(),
  revocation_endpoint: z.string(),
  scopes_supported: z.array(z.string()),
  code_challenge_methods_supported: z.array(z.string()),
});
export type ApplicationClientData = z.infer<typeof applicationClientDataSchema>;

/** `GET consent/{requestId}`: the pending authorization request the consent screen shows. */
export const consentRequestSchema = z.object({
  requestId: z.string(),
  clientId: z.string(),
  applicationName: z.string(),
  description: z.string(),
  platformBaseUrl: z.string(),
  redirectUri: z.string(),
  username: z.string(),
  scopes: z.array(z.string()),
  /** ISO 8601; after it the request must be started again. */
  expiresAt: z.string(),
});
export type ConsentRequest = z.infer<typeof consentRequestSchema>;

/** `POST authorize/{clientId}/{username}` body. */
export const authorizeRequestSchema = z.strictObject({ requestId: z.string().min(1).max(128) });
export type AuthorizeRequest = z.infer<typeof authorizeRequestSchema>;
/** Answer of approve and deny: the console sends the browser there. */
export const authorizeAnswerSchema = z.object({ url: z.string() });
export type AuthorizeAnswer = z.infer<typeof authorizeAnswerSchema>;

/** `GET user-integrations/{username}`: the applications a user has authorized. */
export const userIntegrationSchema = z.object({
  username: z.string(),
  client_id: z.string(),
  application_id: z.string(),
  application_name: z.string(),
  scopes: z.array(z.string()),
  /** ISO 8601. */
  created: z.string(),
  last_used: z.string().nullable(),
});
export type UserIntegration = z.infer<typeof userIntegrationSchema>;
export const userIntegrationListSchema = z.array(userIntegrationSchema);
