import { z } from 'zod';
import { PROJECT_KEY_MAX_LENGTH } from './constants.ts';

/**
 * Access: users, groups, permission targets, tokens, console sessions, MFA, passwords, projects.
 * Shapes are shared by server and console (spec 000 §3, §4, §7, §8; spec 001 §5; DESIGN.md
 * "Access model" and "Public REST API"). Console calls live under `/ui/api/v1/` with the spec's
 * path kept as written; the REST calls live under `/api/security/`.
 */

// ---------------------------------------------------------------------------------------------
// Constants, headers, cookie, error codes and messages
// ---------------------------------------------------------------------------------------------

/** Cookie that carries the console session (HttpOnly, SameSite=Lax, Secure over HTTPS). */
export const SESSION_COOKIE = 'granary_session';
/** Header every state-changing console call authenticated by the session cookie must carry. */
export const CSRF_HEADER = 'X-Granary-CSRF';
export const CSRF_HEADER_VALUE = '1';
/** The user that anonymous requests act as, when an admin enabled anonymous access. */
export const ANONYMOUS_USER = 'anonymous';
/**
 * The Bearer token a registry token endpoint gives callers without credentials (`docker pull` of a
 * public image asks for one): the server treats it exactly as no credentials at all.
 */
export const ANONYMOUS_BEARER_TOKEN = 'anonymous';
/**
 * The one-time code (TOTP) a user with two-step verification sends to create a token, fetch an API key
 * or confirm a CLI sign-in (README "Users, sign-in and permissions"); npm sends its own `npm-otp`.
 */
export const OTP_HEADER = 'X-Granary-OTP';
/** Query parameter of `POST ui/auth/login` (spec 000 §7). */
export const REMEMBER_ME_QUERY = '_spring_security_remember_me';

/** Stable error codes of the access calls; the console switches on these, never on messages. */
export const AccessErrorCode = {
  /** ui/auth/login: the password expired; go to change-password with the username (spec 000 §8). */
  CredentialsExpired: 'CREDENTIALS_EXPIRED',
  /** access/auth/login: the first error's code says the password expired (spec 000 §8). */
  PasswordExpired: 'PASSWORD_EXPIRED',
  BadCredentials: 'BAD_CREDENTIALS',
  /** Too many failures for this name or address; the same answer for unknown users. */
  LockedOut: 'LOCKED_OUT',
  /** A state-changing call with the session cookie but no CSRF header. */
  CsrfMissing: 'CSRF_MISSING',
  /** Login answered mfaStatus ENROLL/VERIFY; the MFA step is not done yet. */
  MfaRequired: 'MFA_REQUIRED',
  InvalidOtp: 'INVALID_OTP',
  /** The user has two-step verification: this call needs a fresh one-time code (`X-Granary-OTP`). */
  OtpRequired: 'OTP_REQUIRED',
  /** The user has two-step verification: HTTP Basic with the password is refused; use a token. */
  MfaTokenRequired: 'MFA_TOKEN_REQUIRED',
  InvalidKey: 'INVALID_KEY',
  WeakPassword: 'WEAK_PASSWORD',
  SessionExpired: 'SESSION_EXPIRED',
  /** change-password: the new password equals the current one. */
  SamePassword: 'SAME_PASSWORD',
  /** A project with this key exists already. */
  ProjectExists: 'PROJECT_EXISTS',
  /** Creating one more project would pass `projects/limit`. */
  ProjectLimit: 'PROJECT_LIMIT',
  /** The default project cannot be deleted. */
  DefaultProject: 'DEFAULT_PROJECT',
  /** Self-registration is off (the admin's security setting). */
  RegistrationDisabled: 'REGISTRATION_DISABLED',
  /** The user name is taken. */
  UserExists: 'USER_EXISTS',
  /** An invitation token that is unknown, spent or expired. */
  InvalidInvitation: 'INVALID_INVITATION',
  /** A mail was needed but no mail server is configured. */
  MailNotConfigured: 'MAIL_NOT_CONFIGURED',
  /** No trusted public address for a mailed link: set GRANARY_BASE_URL. */
  BaseUrlUntrusted: 'BASE_URL_UNTRUSTED',
  /** The mail server refused or could not be reached. */
  MailFailed: 'MAIL_FAILED',
  /** A CLI registration session that is unknown, expired or already delivered. */
  CliSessionNotFound: 'CLI_SESSION_NOT_FOUND',
  /** The admin turned profile updates off for this user. */
  ProfileNotUpdatable: 'PROFILE_NOT_UPDATABLE',
} as const;
export type AccessErrorCode = (typeof AccessErrorCode)[keyof typeof AccessErrorCode];

/** The spec's exact user-facing texts (spec 000 §8, spec 001 §5, §8) and the server's own. */
export const ACCESS_MESSAGES = {
  // spec 000 §4, §8 and spec 001 §8
  notAuthorized: 'You are not authorized to view this page',
  otpFailure: 'something went wrong',
  forgotPasswordFailure: "Email wasn't sent",
  resetPasswordFailure: 'Failed to reset the password',
  changePasswordFailure: 'Failed to change password',
  identityTokenCopied: 'Copied to clipboard',
  identityTokenFailure: 'Failed to generate Identity token',
  projectCreateFailure: 'Failed to create a project',
  // spec 000 §5, spec 001 §5
  projectKeyLowercase: 'Project key must start with a lowercase character',
  // ours (spec: "not shown")
  projectKeyMaxLength: `Project key must be at most ${PROJECT_KEY_MAX_LENGTH} characters`,
  projectKeyCharacters: 'Project key may contain only lowercase letters, digits and hyphens',
  badCredentials: 'Bad credentials',
  credentialsExpired: 'Credentials expired',
  passwordExpired: 'Password expired',
  /** Identical whether or not the user exists. */
  lockedOut: 'Too many failed sign-in attempts. Try again later.',
  csrfMissing: `Missing ${CSRF_HEADER} header`,
  invalidOtp: 'Invalid one-time code',
  /** Says "one-time password", which is what npm looks for before it prompts for a code. */
  otpRequired:
    'This user has two-step verification: enter a one-time password from the authenticator app (a code not used before)',
  mfaTokenRequired:
    'This user has two-step verification: clients sign in with an access token or API key, not the password',
  changeOthersPassword:
    'Only the user can change their own password here; administrators use the user settings',
  invalidResetKey: 'The reset link is invalid or has expired',
  forgotPasswordSent: 'If the user exists and has an email address, a reset link was sent',
  forgotPasswordNoMail:
    'Email is not configured on this server. Contact your administrator to reset your password.',
  samePassword: 'The new password must differ from the current one',
  projectExists: 'A project with this key already exists',
  projectLimit: 'The maximum number of projects has been reached',
  defaultProject: 'The default project cannot be deleted',
  registrationDisabled: 'Registration is disabled. Contact your administrator.',
  userExists: 'This user name is taken',
  passwordsDoNotMatch: 'Passwords do not match',
  wrongOldPassword: 'The current password is wrong',
  userRequired: 'User name is required',
  passwordRequired: 'Password is required',
  invalidInvitation: 'The invitation is invalid or has expired',
  mailNotConfigured:
    'Email is not configured on this server: set up a mail server in the security settings first.',
  baseUrlUntrusted:
    'Granary does not know its public address: set GRANARY_BASE_URL so that mailed links point to this server.',
  mailFailed: 'The mail server did not accept the mail',
  cliSessionNotFound: 'The CLI sign-in request is unknown or has expired. Start again from the CLI.',
  profileNotUpdatable: 'Your administrator does not allow profile changes for this account',
  ssoNotConfigured: (type: string) => `Single sign-on is not configured for ${type}`,
  accountPortalNotConfigured: 'No account portal is configured for this server',
} as const;

/** Texts of the default password policy (minimum length and character classes are configurable). */
export function passwordTooShortMessage(minLength: number): string {
  return `Password must be at least ${minLength} characters`;
}
export function passwordClassesMessage(minClasses: number): string {
  return `Password must contain at least ${minClasses} of: lowercase letters, uppercase letters, digits, other characters`;
}

// ---------------------------------------------------------------------------------------------
// Password policy (also used by the console to validate before sending)
// ---------------------------------------------------------------------------------------------

export const passwordPolicySchema = z.strictObject({
  minLength: z.number().int().min(1).max(256).default(8),
  /** How many of lowercase, uppercase, digits, other characters a password needs. */
  minClasses: z.number().int().min(1).max(4).default(3),
  /** Days until a password expires; 0 = never. */
  expiresDays: z.number().int().min(0).max(3650).default(0),
});
export type PasswordPolicy = z.infer<typeof passwordPolicySchema>;
export const DEFAULT_PASSWORD_POLICY: PasswordPolicy = { minLength: 8, minClasses: 3, expiresDays: 0 };

/** The messages a password breaks, empty when it passes the policy. */
export function passwordProblems(
  password: string,
  policy: PasswordPolicy = DEFAULT_PASSWORD_POLICY,
): string[] {
  const problems: string[] = [];
  if (password.length < policy.minLength) problems.push(passwordTooShortMessage(policy.minLength));
  const classes = [/[a-z]/, /[A-Z]/, /[0-9]/, /[^a-zA-Z0-9]/].filter((re) => re.test(password)).length;
  if (classes < policy.minClasses) problems.push(passwordClassesMessage(policy.minClasses));
  return problems;
}

// ---------------------------------------------------------------------------------------------
// Console login (spec 000 §3, §4, §7)
// ---------------------------------------------------------------------------------------------

export const MfaStatus = { Enroll: 'ENROLL', Verify: 'VERIFY', None: 'NONE' } as const;
export const mfaStatusSchema = z.enum(['ENROLL', 'VERIFY', 'NONE']);
export type MfaStatusValue = z.infer<typeof mfaStatusSchema>;
/** The authenticator the console sets on a VERIFY answer (spec 000 §4: "the Google type"). */
export const MFA_AUTHENTICATOR_GOOGLE = 'GOOGLE';

/** `POST ui/auth/login?_spring_security_remember_me={bool}` body (spec 000 §7). */
export const uiLoginRequestSchema = z.strictObject({
  user: z.string().min(1, ACCESS_MESSAGES.userRequired),
  password: z.string().min(1, ACCESS_MESSAGES.passwordRequired),
  type: z.literal('login').optional(),
});
export type UiLoginRequest = z.infer<typeof uiLoginRequestSchema>;

/** `POST access/auth/login` body (spec 000 §7). */
export const accessLoginRequestSchema = z.strictObject({
  username: z.string().min(1, ACCESS_MESSAGES.userRequired),
  password: z.string().min(1, ACCESS_MESSAGES.passwordRequired),
  rememberMe: z.boolean().optional(),
});
export type AccessLoginRequest = z.infer<typeof accessLoginRequestSchema>;

/**
 * User data (spec 000 §3): the answer of both logins, of the MFA verify calls, of reset/change
 * password and of `GET ui/auth/current`. The anonymous visitor is `{name: 'anonymous', anonymous: true}`.
 */
export const userDataSchema = z.object({
  name: z.string(),
  /** `internal`; `saml` marks a SAML user, `oauth` an OAuth user. */
  realm: z.string(),
  admin: z.boolean(),
  mfaStatus: mfaStatusSchema,
  email: z.string().nullable(),
  anonymous: z.boolean(),
  /** Whether anonymous access is enabled on the platform (spec 000 §4 application start). */
  anonAccessEnabled: z.boolean(),
  /** Member of a project with the Project Admin role (spec 000 §6 project administrator). */
  projectAdmin: z.boolean(),
  groups: z.array(z.string()),
  existsInDB: z.boolean(),
  profileUpdatable: z.boolean(),
  requireProfilePassword: z.boolean(),
  requireProfileUnlock: z.boolean(),
  /** The user has an authenticator: creating tokens and removing it need a one-time code. */
  mfaEnrolled: z.boolean().optional(),
  /** The first administrator still has the password generated at installation: the console nags until it changes. */
  initialPasswordUnchanged: z.boolean().optional(),
});
export type UserData = z.infer<typeof userDataSchema>;

/** `GET access/api/ui/security/loginRelatedData` (spec 000 §3, §7). */
export const loginRelatedDataSchema = z.object({
  forgotPassword: z.boolean(),
  canRememberMe: z.boolean(),
  ssoProviderLink: z.string().nullable(),
  /** Self-registration is on: the login page may link to registration. */
  canRegister: z.boolean().optional(),
  /** Where `/user/my-jfrog-redirect` sends the user (security setting `accountPortalUrl`); null when unset. */
  accountPortalUrl: z.string().nullable().optional(),
});
export type LoginRelatedData = z.infer<typeof loginRelatedDataSchema>;

/** `GET ui/auth/redirect?redirectTo=` answer: a same-origin path, `/ui/` when the asked one is not. */
export const loginRedirectSchema = z.object({ url: z.string() });
/** `GET autoRedirectState` (spec 000 §7). */
export const autoRedirectStateSchema = z.object({ isAutoRedirectLogin: z.boolean() });
/** `GET access/mode` (spec 000 §7, response not shown: ours). */
export const accessModeSchema = z.object({ mode: z.literal('internal') });

// ---------------------------------------------------------------------------------------------
// MFA (spec 000 §4, §7)
// ---------------------------------------------------------------------------------------------

/** `GET auth/mfa/enroll/{x}` and `access/auth/mfa/enroll/{x}`: a new TOTP secret (RFC 6238). */
export const mfaEnrollResponseSchema = z.object({
  secret: z.string(),
  otpauthUri: z.string(),
  issuer: z.string(),
  account: z.string(),
});
export type MfaEnrollResponse = z.infer<typeof mfaEnrollResponseSchema>;

/** `POST auth/mfa/verify/{x}` body: the code and the authenticator type. Answer: user data. */
export const mfaVerifyRequestSchema = z.strictObject({
  otp: z.string().regex(/^\d{6}$/, ACCESS_MESSAGES.invalidOtp),
  type: z.string().optional(),
});
export type MfaVerifyRequest = z.infer<typeof mfaVerifyRequestSchema>;

// ---------------------------------------------------------------------------------------------
// Forgot / reset / change password (spec 000 §4, §7, §8)
// ---------------------------------------------------------------------------------------------

/** `POST ui/auth/forgotpassword` */
export const forgotPasswordRequestSchema = z.strictObject({
  user: z.string().min(1, ACCESS_MESSAGES.userRequired),
});
export const forgotPasswordResponseSchema = z.object({
  message: z.string(),
  /**
   * false when no mail server is configured: no mail can be sent, the console tells the user to
   * contact an administrator (the reset link is then in security.log). Says nothing about the user.
   */
  mailConfigured: z.boolean().optional(),
});
/** `POST validatetoken?key=` and `POST ui/auth/resetpassword?key=` query. */
export const resetKeyQuerySchema = z.object({ key: z.string().min(1).max(256) });
/** Path of the console page a reset mail links to: `{base}/ui/auth/reset-password?key=…`. */
export const RESET_PASSWORD_PAGE = '/ui/auth/reset-password';
/** A reset key works once, for this long. */
export const RESET_KEY_TTL_MS = 60 * 60_000;
/** `POST validatetoken?key=` answer (spec 000 §3 "Key validation response: user"). */
export const validateKeyResponseSchema = z.object({ user: z.string() });
/** `POST ui/auth/resetpassword?key=` body; answer: user data (signed in, rememberMe false). */
export const resetPasswordRequestSchema = z.strictObject({
  user: z.string().min(1, ACCESS_MESSAGES.userRequired),
  password: z.string().min(1, ACCESS_MESSAGES.passwordRequired),
});
/** `POST changePassword?prefix=changePassword` body; answer: user data (signed in, rememberMe false). */
export const changePasswordRequestSchema = z
  .strictObject({
    userName: z.string().min(1, ACCESS_MESSAGES.userRequired),
    oldPassword: z.string().min(1, ACCESS_MESSAGES.passwordRequired),
    newPassword1: z.string().min(1, ACCESS_MESSAGES.passwordRequired),
    newPassword2: z.string().min(1, ACCESS_MESSAGES.passwordRequired),
  })
  .refine((v) => v.newPassword1 === v.newPassword2, {
    message: ACCESS_MESSAGES.passwordsDoNotMatch,
    path: ['newPassword2'],
  });
export type ChangePasswordRequest = z.infer<typeof changePasswordRequestSchema>;

// ---------------------------------------------------------------------------------------------
// Self-registration (spec 000 §2 login area "registration"): `POST ui/auth/register`
// ---------------------------------------------------------------------------------------------

/** Only these fields: a registration can never make an admin or join groups (other fields → 400). */
export const registrationRequestSchema = z.strictObject({
  user: z
    .string()
    .min(1, ACCESS_MESSAGES.userRequired)
    .max(64)
    .regex(/^[A-Za-z0-9][A-Za-z0-9._@-]*$/, 'Name may contain letters, digits, ".", "_", "@" and "-"'),
  email: z.email(),
  password: z.string().min(1, ACCESS_MESSAGES.passwordRequired),
});
export type RegistrationRequest = z.infer<typeof registrationRequestSchema>;
export const registrationResponseSchema = z.object({ name: z.string(), email: z.string() });

// ---------------------------------------------------------------------------------------------
// Users (REST `/api/security/users`)
// ---------------------------------------------------------------------------------------------

const principalName = z
  .string()
  .min(1)
  .max(64)
  .regex(/^[A-Za-z0-9][A-Za-z0-9._@-]*$/, 'Name may contain letters, digits, ".", "_", "@" and "-"');
export const userNameSchema = principalName;

/** `GET /api/security/users/{name}`. */
export const userSchema = z.object({
  name: z.string(),
  email: z.string().nullable(),
  admin: z.boolean(),
  disabled: z.boolean(),
  /** Locked out by too many failed sign-ins; `POST /api/security/users/{name}/unlock` clears it. */
  locked: z.boolean(),
  passwordExpired: z.boolean(),
  profileUpdatable: z.boolean(),
  mfaEnabled: z.boolean(),
  realm: z.string(),
  groups: z.array(z.string()),
  lastLoggedIn: z.string().nullable(),
});
export type User = z.infer<typeof userSchema>;

/** `PUT /api/security/users/{name}` creates (201, password required) or replaces; unknown fields → 400. */
export const userWriteSchema = z.strictObject({
  name: principalName.optional(),
  email: z.email().nullable().optional(),
  /** Write only. */
  password: z.string().min(1).optional(),
  admin: z.boolean().optional(),
  disabled: z.boolean().optional(),
  /** true forces a password change at the next sign-in. */
  passwordExpired: z.boolean().optional(),
  profileUpdatable: z.boolean().optional(),
  groups: z.array(principalName).optional(),
});
export type UserWrite = z.infer<typeof userWriteSchema>;

export const userListItemSchema = z.object({ name: z.string(), uri: z.string(), realm: z.string() });

// ---------------------------------------------------------------------------------------------
// Groups (REST `/api/security/groups`)
// ---------------------------------------------------------------------------------------------

export const groupSchema = z.object({
  name: z.string(),
  description: z.string(),
  adminPrivileges: z.boolean(),
  autoJoin: z.boolean(),
  realm: z.string(),
  members: z.array(z.string()),
});
export type Group = z.infer<typeof groupSchema>;

export const groupWriteSchema = z.strictObject({
  name: principalName.optional(),
  description: z.string().max(1024).optional(),
  adminPrivileges: z.boolean().optional(),
  /** New users join this group automatically. */
  autoJoin: z.boolean().optional(),
  members: z.array(principalName).optional(),
});
export type GroupWrite = z.infer<typeof groupWriteSchema>;

export const namedListItemSchema = z.object({ name: z.string(), uri: z.string() });

// ---------------------------------------------------------------------------------------------
// Permission targets (REST `/api/security/permissions`)
// ---------------------------------------------------------------------------------------------

export const PERMISSION_ACTIONS = ['read', 'annotate', 'write', 'delete', 'manage'] as const;
export const permissionActionSchema = z.enum(PERMISSION_ACTIONS);
export type PermissionAction = z.infer<typeof permissionActionSchema>;
/** Repository tokens of a target's `repositories` besides repository keys. */
export const ANY_REPOSITORY = 'ANY';
export const ANY_LOCAL_REPOSITORY = 'ANY LOCAL';
export const ANY_REMOTE_REPOSITORY = 'ANY REMOTE';
export const REPOSITORY_CLASSES = ['local', 'remote', 'virtual'] as const;
export type RepositoryClass = (typeof REPOSITORY_CLASSES)[number];

const actionsMap = z.record(principalName, z.array(permissionActionSchema));
export const permissionResourceSchema = z.strictObject({
  /** Repository keys, `ANY`, `ANY LOCAL`, `ANY REMOTE` (builds and release bundles: names or `ANY`). */
  repositories: z.array(z.string().min(1)).default([]),
  /** Ant-style path patterns (`**`, `*`, `?`); default `**`. */
  include_patterns: z.array(z.string().min(1)).default(['**']),
  exclude_patterns: z.array(z.string().min(1)).default([]),
  actions: z
    .strictObject({
      users: actionsMap.default({}),
      groups: actionsMap.default({}),
    })
    .default({ users: {}, groups: {} }),
});
export type PermissionResource = z.infer<typeof permissionResourceSchema>;

export const permissionTargetSchema = z.strictObject({
  name: z.string().min(1).max(128),
  repo: permissionResourceSchema.optional(),
  build: permissionResourceSchema.optional(),
  releaseBundle: permissionResourceSchema.optional(),
});
export type PermissionTarget = z.infer<typeof permissionTargetSchema>;
/** PUT body: the name comes from the path and may be repeated in the body. */
export const permissionTargetWriteSchema = permissionTargetSchema.extend({
  name: z.string().min(1).max(128).optional(),
});
export type PermissionTargetWrite = z.infer<typeof permissionTargetWriteSchema>;

// ---------------------------------------------------------------------------------------------
// Access tokens (REST `/api/security/tokens`) and identity tokens (spec 000 §7)
// ---------------------------------------------------------------------------------------------

/**
 * A token acts with its owner's rights without admin rights (`user`), or as admin if the owner is one
 * (`admin`); `applied-permissions/groups:g1,g2` keeps only those groups' permissions, and
 * `granary/read-only`, `granary/repositories:k1,k2` narrow any of them (README "Token scopes").
 */
export const TOKEN_SCOPES = ['applied-permissions/user', 'applied-permissions/admin'] as const;
export const tokenScopeSchema = z
  .string()
  .max(1024)
  .regex(
    /^applied-permissions\/\S+( \S+)*$/,
    'Scope starts with applied-permissions/… (space-separated items)',
  );
export const tokenCreateRequestSchema = z.strictObject({
  username: principalName.optional(),
  scope: tokenScopeSchema.optional(),
  /** Seconds; absent = the default expiry (setting `tokenDefaultExpirySecs`); 0 = never expires, said explicitly. */
  expires_in: z.number().int().min(0).optional(),
  description: z.string().max(1024).optional(),
});
export type TokenCreateRequest = z.infer<typeof tokenCreateRequestSchema>;
export const tokenCreateResponseSchema = z.object({
  token_id: z.string(),
  access_token: z.string(),
  expires_in: z.number().int().nullable(),
  scope: z.string(),
  token_type: z.literal('Bearer'),
});
export type TokenCreateResponse = z.infer<typeof tokenCreateResponseSchema>;
export const tokenInfoSchema = z.object({
  token_id: z.string(),
  subject: z.string(),
  scope: z.string(),
  description: z.string().nullable(),
  /** Epoch seconds, or null for no expiry. */
  expiry: z.number().int().nullable(),
  issued_at: z.number().int(),
  last_used: z.number().int().nullable(),
  /** `apikey`: the user's one API key (spec 001 §7), a long-lived personal token. */
  kind: z.enum(['access', 'identity', 'apikey']),
});
export type TokenInfo = z.infer<typeof tokenInfoSchema>;
export const tokenListSchema = z.object({ tokens: z.array(tokenInfoSchema) });

/** `POST ui/userIdentifyToken/{name}` body (spec 000 §7). */
export const identityTokenRequestSchema = z.strictObject({
  description: z.string().max(1024).optional(),
  includeReferenceToken: z.boolean().optional(),
  /** Seconds; absent = the default expiry (setting `tokenDefaultExpirySecs`); 0 = never expires, said explicitly. */
  expiresIn: z.number().int().min(0).optional(),
});
export const identityTokenResponseSchema = z.object({
  token_id: z.string(),
  access_token: z.string(),
  /** The token to paste into clients (spec 000 §7 "reads reference_token"). */
  reference_token: z.string(),
  expires_in: z.number().int().nullable(),
});
export type IdentityTokenResponse = z.infer<typeof identityTokenResponseSchema>;

// ---------------------------------------------------------------------------------------------
// Security configuration (admin): anonymous access, MFA, password policy, lockout, mail
// ---------------------------------------------------------------------------------------------

export const mailSettingsSchema = z.strictObject({
  enabled: z.boolean().default(false),
  host: z.string().default(''),
  port: z.number().int().min(1).max(65535).default(25),
  /** Implicit TLS (SMTPS); otherwise STARTTLS when the server offers it. */
  secure: z.boolean().default(false),
  username: z.string().default(''),
  /** Write only: answers show `null` when set. */
  password: z.string().nullable().optional(),
  from: z.string().default('granary@localhost'),
});
export type MailSettings = z.infer<typeof mailSettingsSchema>;

/** Artifactory's default token expiry is a year (`default_token_expiration`); ours too. */
export const DEFAULT_TOKEN_EXPIRY_SECS = 365 * 86_400;
const tokenDefaultExpirySchema = z.number().int().min(0).default(DEFAULT_TOKEN_EXPIRY_SECS);
const tokenMaxExpirySchema = z.number().int().min(0).default(0);

const accountPortalUrlSchema = z.union([z.literal(''), z.url({ protocol: /^https?$/ })]).default('');

export const securityConfigSchema = z.strictObject({
  anonymousAccess: z.boolean(),
  /** Every user must enrol a TOTP authenticator at the next sign-in. */
  mfaRequired: z.boolean(),
  selfRegistration: z.boolean(),
  passwordPolicy: passwordPolicySchema,
  mail: mailSettingsSchema,
  /** The account portal `/user/my-jfrog-redirect` sends users to (spec 000 §2); '' = none. */
  accountPortalUrl: accountPortalUrlSchema,
  /** Lifetime of a token created without `expires_in` (seconds, default 1 year); 0 = such tokens never expire. */
  tokenDefaultExpirySecs: tokenDefaultExpirySchema,
  /** Longest lifetime a non-admin may ask for (seconds); 0 = no limit, and non-admins may ask for `expires_in: 0`. */
  tokenMaxExpirySecs: tokenMaxExpirySchema,
});
export type SecurityConfig = z.infer<typeof securityConfigSchema>;
export const securityConfigPatchSchema = z.strictObject({
  anonymousAccess: z.boolean().optional(),
  mfaRequired: z.boolean().optional(),
  selfRegistration: z.boolean().optional(),
  passwordPolicy: passwordPolicySchema.partial().optional(),
  mail: mailSettingsSchema.partial().optional(),
  accountPortalUrl: accountPortalUrlSchema.optional(),
  tokenDefaultExpirySecs: tokenDefaultExpirySchema.optional(),
  tokenMaxExpirySecs: tokenMaxExpirySchema.optional(),
});
export type SecurityConfigPatch = z.infer<typeof securityConfigPatchSchema>;

// ---------------------------------------------------------------------------------------------
// Audit
// ---------------------------------------------------------------------------------------------

export const auditEventSchema = z.object({
  id: z.number().int(),
  at: z.string(),
  actor: z.string().nullable(),
  action: z.string(),
  target: z.string().nullable(),
  ip: z.string().nullable(),
  result: z.enum(['success', 'failure', 'denied']),
  requestId: z.string().nullable(),
});
export type AuditEvent = z.infer<typeof auditEventSchema>;
export const auditListSchema = z.object({ events: z.array(auditEventSchema) });

// ---------------------------------------------------------------------------------------------
// Projects (spec 000 §3, §5, §7; spec 001 §3, §5, §9) — `/ui/api/v1/projects`, `/ui/api/v1/access/projects`
// ---------------------------------------------------------------------------------------------

export const projectKeySchema = z
  .string()
  .min(1, ACCESS_MESSAGES.projectKeyLowercase)
  .max(PROJECT_KEY_MAX_LENGTH, ACCESS_MESSAGES.projectKeyMaxLength)
  .regex(/^[a-z]/, ACCESS_MESSAGES.projectKeyLowercase)
  .regex(/^[a-z][a-z0-9-]*$/, ACCESS_MESSAGES.projectKeyCharacters)
  // `projects/limit` is a call of its own (spec 000 §7), so no project may be keyed `limit`.
  .refine((key) => key !== 'limit', 'Project key "limit" is reserved');

export const projectAdminPrivilegesSchema = z.strictObject({
  manage_members: z.boolean().default(true),
  manage_resources: z.boolean().default(true),
  index_resources: z.boolean().default(true),
});
export const projectSchema = z.object({
  project_key: z.string(),
  display_name: z.string(),
  description: z.string(),
  admin_privileges: z.object({
    manage_members: z.boolean(),
    manage_resources: z.boolean(),
    index_resources: z.boolean(),
  }),
  storage_quota_bytes: z.number().int().nullable(),
});
export type Project = z.infer<typeof projectSchema>;
export const projectCreateSchema = z.strictObject({
  project_key: projectKeySchema,
  display_name: z.string().min(1).max(256),
  description: z.string().max(2048).optional(),
  admin_privileges: projectAdminPrivilegesSchema.optional(),
  storage_quota_bytes: z.number().int().min(-1).nullable().optional(),
});
export type ProjectCreate = z.infer<typeof projectCreateSchema>;
export const projectUpdateSchema = projectCreateSchema.omit({ project_key: true }).partial();
export type ProjectUpdate = z.infer<typeof projectUpdateSchema>;

/** `GET projects/limit` (spec 000 §9: single 1, first level 100, second level 100). */
export const projectLimitSchema = z.object({
  single: z.number().int(),
  firstLevel: z.number().int(),
  secondLevel: z.number().int(),
  /** Projects that exist now. */
  current: z.number().int(),
});

export const PROJECT_ROLES = ['Project Admin', 'Developer', 'Contributor', 'Viewer'] as const;
export const projectRoleSchema = z.enum(PROJECT_ROLES);
/** `PUT access/projects/{key}/users/{name}` and `…/groups/{name}` body. */
export const projectMemberWriteSchema = z.strictObject({
  name: principalName.optional(),
  roles: z.array(projectRoleSchema).min(1),
});
export const projectMemberSchema = z.object({ name: z.string(), roles: z.array(projectRoleSchema) });
export const projectMembersSchema = z.object({ members: z.array(projectMemberSchema) });
/** `GET access/projects/{key}/users` and `…/groups` answer (alias of `projectMembersSchema`). */
export type ProjectMembers = z.infer<typeof projectMembersSchema>;
export type ProjectMember = z.infer<typeof projectMemberSchema>;
export type ProjectLimit = z.infer<typeof projectLimitSchema>;
/** spec 000 §9, spec 001 §9: project level limits; `firstLevel` is the most projects one server holds. */
export const PROJECT_LIMITS = { single: 1, firstLevel: 100, secondLevel: 100 } as const;

// ---------------------------------------------------------------------------------------------
// Invitations (spec 000 §2 "invitation", §5, §7): an admin invites an email; the mailed link opens
// `/ui/login/invitation?token=…`, where the invitee picks a name and a password.
// ---------------------------------------------------------------------------------------------

/** An invitation token: 32 random bytes, base64url (spec 000 §5 "a token query value that passes a format check"). */
export const INVITATION_TOKEN_PATTERN = /^[A-Za-z0-9_-]{43}$/;
export const invitationTokenSchema = z.string().regex(INVITATION_TOKEN_PATTERN, 'Not an invitation token');
export const INVITATION_PAGE = '/ui/login/invitation';
/** An invitation works once, for this long. */
export const INVITATION_TTL_MS = 7 * 24 * 60 * 60_000;

/** `POST /api/security/invitations` (admin). */
export const invitationCreateSchema = z.strictObject({
  email: z.email(),
  /** Hours until the link expires; default 7 days. */
  expiresInHours: z
    .number()
    .int()
    .min(1)
    .max(24 * 30)
    .optional(),
});
export type InvitationCreate = z.infer<typeof invitationCreateSchema>;
export const invitationCreatedSchema = z.object({ email: z.string(), expiresAt: z.string() });
export type InvitationCreated = z.infer<typeof invitationCreatedSchema>;

/** `POST access/token/verify` (spec 000 §7) body and answer. */
export const invitationVerifyRequestSchema = z.strictObject({ token: z.string().min(1).max(256) });
export const invitationVerifyResponseSchema = z.object({ email: z.string(), expiresAt: z.string() });
export type InvitationVerifyResponse = z.infer<typeof invitationVerifyResponseSchema>;

/** `POST access/entities/users/invited/setPassword` (spec 000 §7): creates the user and signs in. */
export const invitedSetPasswordSchema = z.strictObject({
  token: z.string().min(1).max(256),
  username: userNameSchema,
  password: z.string().min(1, ACCESS_MESSAGES.passwordRequired),
});
export type InvitedSetPassword = z.infer<typeof invitedSetPasswordSchema>;

// ---------------------------------------------------------------------------------------------
// CLI registration (spec 000 §2 "cli-registration"): a CLI opens a session, the user confirms it
// in the console at `/ui/login/cli-registration?session=…`, the CLI polls for its access token.
// ---------------------------------------------------------------------------------------------

export const CLI_REGISTRATION_PAGE = '/ui/login/cli-registration';
/** A pending CLI session lives this long. */
export const CLI_SESSION_TTL_MS = 5 * 60_000;
/** How often a CLI should poll. */
export const CLI_POLL_INTERVAL_SECONDS = 2;
export const CLI_SESSION_PATTERN = /^[A-Za-z0-9_-]{43}$/;
export const cliSessionIdSchema = z.string().regex(CLI_SESSION_PATTERN, 'Not a CLI session');

/** `POST /api/security/cli-registrations` body (public). */
export const cliSessionCreateSchema = z
  .strictObject({
    /** Shown to the user on the confirmation page and stored as the token's description. */
    client: z.string().trim().min(1).max(100).optional(),
  })
  .default({});
export const cliSessionCreatedSchema = z.object({
  session: z.string(),
  /** A short code the CLI shows; the console page shows the same one for the user to compare. */
  code: z.string(),
  /** `{base}/ui/login/cli-registration?session=…`: the CLI opens it in a browser. */
  url: z.string(),
  expiresAt: z.string(),
  pollIntervalSeconds: z.number().int(),
});
export type CliSessionCreated = z.infer<typeof cliSessionCreatedSchema>;
/** `GET /api/security/cli-registrations/{session}`: 202 pending, 200 once with the token, then 404. */
export const cliSessionPollSchema = z.discriminatedUnion('status', [
  z.object({ status: z.literal('pending'), expiresAt: z.string() }),
  z.object({
    status: z.literal('confirmed'),
    username: z.string(),
    access_token: z.string(),
    token_id: z.string(),
    token_type: z.literal('Bearer'),
  }),
]);
export type CliSessionPoll = z.infer<typeof cliSessionPollSchema>;
/** `GET access/cli-registration/{session}` (console): what the confirmation page shows. */
export const cliSessionInfoSchema = z.object({
  code: z.string(),
  client: z.string().nullable(),
  confirmed: z.boolean(),
  expiresAt: z.string(),
});
export type CliSessionInfo = z.infer<typeof cliSessionInfoSchema>;

// ---------------------------------------------------------------------------------------------
// Self-service profile and API key (spec 000 §6, §7 "POST ui/userProfile"; spec 001 §7)
// ---------------------------------------------------------------------------------------------

/** `POST ui/userProfile`: the current password proves the user; `email` changes it when profileUpdatable. */
export const userProfileUpdateSchema = z.strictObject({
  /** `""` only for a single sign-on user without a Granary password (spec 000 §6, OAuth realm). */
  password: z.string().max(1024),
  email: z
    .union([z.literal(''), z.email('Enter a valid email address')])
    .nullable()
    .optional(),
});
export type UserProfileUpdate = z.infer<typeof userProfileUpdateSchema>;

/** `POST auth/mfa/reset`: the user removes their own authenticator, with the current password and a fresh code. */
export const mfaSelfResetSchema = z.strictObject({
  password: z.string().min(1, ACCESS_MESSAGES.passwordRequired),
  /** A code from the authenticator being removed (required when one is enrolled). */
  otp: z.string().max(16).optional(),
});

/**
 * Header of `GET apiKey/{username}` (spec 001 §7 "a reauthentication header carrying basic credentials"):
 * `Basic base64(user:password)` of the signed-in user.
 */
export const REAUTHENTICATION_HEADER = 'X-Granary-Reauthentication';
/**
 * An API key is a long-lived personal access token (kind `apikey`, no expiry, the owner's rights); a user
 * has at most one. Only its hash is stored, so `GET ui/userApiKey` says whether one exists and
 * `GET apiKey/{username}` (re-authenticated) issues a new one, replacing the old one.
 */
export const userApiKeyInfoSchema = z.object({
  exists: z.boolean(),
  createdAt: z.string().nullable(),
  lastUsed: z.string().nullable(),
});
export type UserApiKeyInfo = z.infer<typeof userApiKeyInfoSchema>;
export const apiKeyResponseSchema = z.object({ apiKey: z.string() });
