import { z } from 'zod';

/** `GET /api/system/ping` answers this body with 200 once the server serves. */
export const PING_BODY = 'OK';

export const versionSchema = z.object({
  version: z.string(),
  revision: z.string(),
});
export type Version = z.infer<typeof versionSchema>;

// ---------------------------------------------------------------------------------------------
// Licences — spec 000 §3: licence kinds with rank; the type N/A means no licence.

export const LICENSE_RANKS = {
  OSS: 1,
  CONAN: 1,
  JCR: 1,
  COMMERCIAL: 2,
  COMMERCIAL_X: 2,
  TRIAL: 3,
  EDGE: 4,
  EDGE_TRIAL: 4,
  ENTERPRISE: 4,
  ENTERPRISE_X: 4,
  ENTERPRISE_PLUS_TRIAL: 5,
  ENTERPRISE_PLUS: 5,
} as const;
export type LicenseKind = keyof typeof LICENSE_RANKS;
export const LICENSE_KINDS = Object.keys(LICENSE_RANKS) as [LicenseKind, ...LicenseKind[]];
/** spec 000 §3: the licence type N/A means no licence; its rank is that of `none`, 0. */
export const NO_LICENSE = 'N/A';
export const NO_LICENSE_RANK = 0;
export type LicenseType = LicenseKind | typeof NO_LICENSE;
export const licenseKindSchema = z.enum(LICENSE_KINDS);

export function licenseRank(type: string | null | undefined): number {
  return type && Object.hasOwn(LICENSE_RANKS, type) ? LICENSE_RANKS[type as LicenseKind] : NO_LICENSE_RANK;
}

/**
 * What a licence entitles to, derived from its kind (answered by `GET /jfconnect/entitlements`).
 * An entitlement is held when the licence's rank reaches `minRank`, or its kind is listed in `kinds`.
 * - repositories, setMeUp, quickRepositoryCreation: any licence (spec 000 §2 "licence needed" items);
 * - scanning: commercial, trial, edge or enterprise and above (spec 001 §2 Xray search, teaser redirect);
 * - distribution: edge or enterprise-plus kinds (spec 001 §2 release bundles search);
 * - releaseBundleSource: enterprise-plus (spec 000 §2 distribution source tab);
 * - highAvailability: enterprise and above (spec 001 §7 nodes status for high-availability licence types);
 * - projects: commercial and above.
 */
export const ENTITLEMENT_RULES = {
  repositories: { minRank: 1 },
  setMeUp: { minRank: 1 },
  quickRepositoryCreation: { minRank: 1 },
  projects: { minRank: 2 },
  scanning: { minRank: 2 },
  highAvailability: { minRank: 4 },
  distribution: { kinds: ['EDGE', 'EDGE_TRIAL', 'ENTERPRISE_PLUS_TRIAL', 'ENTERPRISE_PLUS'] },
  releaseBundleSource: { minRank: 5 },
} as const satisfies Record<string, { minRank?: number; kinds?: readonly LicenseKind[] }>;
export type Entitlement = keyof typeof ENTITLEMENT_RULES;

export function entitlementsFor(type: LicenseType): Record<Entitlement, boolean> {
  const rank = licenseRank(type);
  const out = {} as Record<Entitlement, boolean>;
  for (const [name, rule] of Object.entries(ENTITLEMENT_RULES) as [
    Entitlement,
    { minRank?: number; kinds?: readonly LicenseKind[] },
  ][])
    out[name] =
      rank > 0 &&
      ((rule.minRank !== undefined && rank >= rule.minRank) ||
        (rule.kinds?.includes(type as LicenseKind) ?? false));
  return out;
}

/** The signed content of a licence key: `base64url(JSON payload) + "." + base64url(Ed25519 signature)`. */
export const licensePayloadSchema = z.object({
  id: z.string().min(1).max(200),
  type: licenseKindSchema,
  licensedTo: z.string().min(1).max(200),
  issuedAt: z.iso.datetime({ offset: true }),
  /** null: never expires. */
  validThrough: z.iso.datetime({ offset: true }).nullable(),
});
export type LicensePayload = z.infer<typeof licensePayloadSchema>;

export const licenseDetailsSchema = z.object({
  type: z.union([licenseKindSchema, z.literal(NO_LICENSE)]),
  rank: z.number().int(),
  /** builtin: the licence a fresh install carries; installed: a verified key; none: no licence. */
  source: z.enum(['builtin', 'installed', 'none']),
  licensedTo: z.string().nullable(),
  id: z.string().nullable(),
  validThrough: z.string().nullable(),
  expired: z.boolean(),
  /** Why there is no licence, when there is none. */
  reason: z.string().nullable(),
});
export type LicenseDetails = z.infer<typeof licenseDetailsSchema>;

export const installLicenseSchema = z.strictObject({ licenseKey: z.string().min(1).max(20_000) });
export type InstallLicense = z.infer<typeof installLicenseSchema>;

export const LICENSE_MESSAGES = {
  malformed: 'The licence key is malformed',
  badSignature: 'The licence key signature is not valid for any trusted key',
  noTrustedKey: 'No licence public key is trusted: set GRANARY_LICENSE_PUBLIC_KEYS',
  expired: 'The licence has expired',
  disabledByConfig: 'Licensing is off on this instance (GRANARY_LICENSE=none)',
  removed: 'The licence was removed',
} as const;

export const entitlementsSchema = z.object({
  licenseType: z.union([licenseKindSchema, z.literal(NO_LICENSE)]),
  rank: z.number().int(),
  entitlements: z.record(z.string(), z.boolean()),
});
export type Entitlements = z.infer<typeof entitlementsSchema>;

// ---------------------------------------------------------------------------------------------
// Instance flavour and general configuration — spec 000 §2 menus and §4 application start.

export const FLAVOUR_FLAGS = ['cloud', 'trial', 'freeTier', 'lightweight', 'registryOnly'] as const;
export type FlavourFlag = (typeof FLAVOUR_FLAGS)[number];
export const flavourSchema = z.object({
  cloud: z.boolean(),
  trial: z.boolean(),
  freeTier: z.boolean(),
  lightweight: z.boolean(),
  registryOnly: z.boolean(),
});
export type Flavour = z.infer<typeof flavourSchema>;

export const DATE_FORMATS = [
  'dd-MM-yy HH:mm:ss z',
  'yyyy-MM-dd HH:mm:ss',
  'dd/MM/yyyy HH:mm',
  'MM/dd/yyyy HH:mm',
] as const;
export const DEFAULT_SERVER_NAME = 'Granary';
/** Largest custom logo accepted, and its image types (no SVG: it can carry script). */
export const LOGO_MAX_BYTES = 1024 * 1024;
export const LOGO_CONTENT_TYPES = ['image/png', 'image/jpeg', 'image/gif', 'image/webp'] as const;
/** The stable URL a custom logo is served at (relative to the server root). */
export const LOGO_URL = '/ui/api/v1/ui/logo';

export const generalConfigSchema = z.object({
  serverName: z.string(),
  /** The custom logo, when one is uploaded. */
  logoUrl: z.string().nullable(),
  footer: z.object({ text: z.string(), logoUrl: z.string().nullable() }),
  helpLinksEnabled: z.boolean(),
  anonymousAccessAllowed: z.boolean(),
  dateFormat: z.string(),
  flavour: flavourSchema,
  /** Only for a signed-in caller or when anonymous access is allowed (absent on a bare login page). */
  baseUrl: z.string().optional(),
  licenseType: z.union([licenseKindSchema, z.literal(NO_LICENSE)]).optional(),
});
export type GeneralConfig = z.infer<typeof generalConfigSchema>;

/** `POST ui/artifactgeneral` (admin): the editable part; absent keeps, footer logo null clears. */
export const generalConfigUpdateSchema = z.strictObject({
  serverName: z.string().trim().min(1).max(100).optional(),
  dateFormat: z.enum(DATE_FORMATS).optional(),
  footerText: z.string().max(500).optional(),
  footerLogoUrl: z
    .url({ protocol: /^https?$/ })
    .max(2000)
    .nullable()
    .optional(),
  helpLinksEnabled: z.boolean().optional(),
});
export type GeneralConfigUpdate = z.infer<typeof generalConfigUpdateSchema>;

// ---------------------------------------------------------------------------------------------
// Feature flags — spec 000 §2 and §6 rules that depend on a supported feature.

/** Every feature flag with its default; unknown names are refused. */
export const FEATURE_FLAG_DEFAULTS = {
  /** spec 000 §2 user menu: Switch to Classic UI / New UI. */
  navigationSwitching: false,
  /** spec 000 §2 help menu: Learning Center. */
  educationCenter: true,
  /** spec 000 §2 help menu: Documentation link. */
  helpLinks: true,
  /** spec 000 §2 /quick-setup pushed as a page (free-tier quick-deploy landing). */
  quickDeployLanding: false,
  /** spec 000 §4 onboarding: quick setup visible. */
  quickSetup: true,
  /** spec 000 §2 /template route. */
  template: false,
  /** spec 000 §2 /demo route. */
  demo: false,
  /** spec 000 §6 items tied to the new set-me-up (artifacts browser). */
  artifactsBrowser: true,
  /** spec 000 §6 first item border when unified navigation is unsupported. */
  unifiedNavigation: true,
  /** spec 001 §2 Archive search (cold storage). */
  coldStorage: false,
  /** spec 001 §2 pipelines toolbar search. */
  toolbarSearch: false,
  /** issue 18, spec 001 §4/§6: git integrations ("git repo scanning"), admins only. */
  gitRepoScanning: true,
} as const satisfies Record<string, boolean>;
export type FeatureFlag = keyof typeof FEATURE_FLAG_DEFAULTS;
export const FEATURE_FLAGS = Object.keys(FEATURE_FLAG_DEFAULTS) as [FeatureFlag, ...FeatureFlag[]];
export const featuresConfigSchema = z.record(z.enum(FEATURE_FLAGS), z.boolean());
export type FeaturesConfig = Record<FeatureFlag, boolean>;
/** PUT/PATCH body: known flags only (`z.strictObject` refuses the rest). */
export const featuresConfigPatchSchema = z.strictObject(
  Object.fromEntries(FEATURE_FLAGS.map((f) => [f, z.boolean().optional()])) as Record<
    FeatureFlag,
    z.ZodOptional<z.ZodBoolean>
  >,
);
export type FeaturesConfigPatch = z.infer<typeof featuresConfigPatchSchema>;

// ---------------------------------------------------------------------------------------------
// Microservices, nodes, onboarding — spec 000 §7 start-up calls, spec 001 §3 service status.

export const MICROSERVICES = ['artifactory', 'access', 'xray', 'distribution', 'mc', 'pipelines'] as const;
export type Microservice = (typeof MICROSERVICES)[number];
export const microservicesSchema = z.record(z.enum(MICROSERVICES), z.boolean());
export const microserviceEnabledSchema = z.object({ name: z.string(), enabled: z.boolean() });

/** spec 000 §9 / 001 §3: node status strings; only Online counts. */
export const OFFLINE_NODE_STATUS = 'Offline';
/** issue 15: every node beats every 5 s and is Offline after 15 s of silence. */
export const NODE_HEARTBEAT_INTERVAL_MS = 5_000;
export const NODE_OFFLINE_AFTER_MS = 15_000;
export const nodeSchema = z.object({
  node_id: z.string(),
  host_name: z.string(),
  url: z.string(),
  status: z.enum(['Online', 'Offline']),
  version: z.string(),
  revision: z.string(),
  start_time: z.string(),
  last_heartbeat: z.string(),
  uptime_seconds: z.number().int(),
  current: z.boolean(),
});
export type NodeStatus = z.infer<typeof nodeSchema>;
export const nodesSchema = z.object({ nodes: z.array(nodeSchema) });

export const onboardingSchema = z.object({ completed: z.boolean(), completedAt: z.string().nullable() });
export type Onboarding = z.infer<typeof onboardingSchema>;
export const onboardingUpdateSchema = z.strictObject({ completed: z.boolean() });

/**
 * `system/loginConfig`: sign-in routing the console's route guard reads on the login page (spec 000
 * §3 login state `samlLogoutUrl`, auto-redirect state `isAutoRedirectLogin`; §4 route guard).
 */
export const loginConfigSchema = z.object({
  /** the single sign-on provider's sign-in address */
  ssoLoginUrl: z.string().nullable(),
  /** send visitors of the login page straight to `ssoLoginUrl` (only when it is set) */
  autoRedirectLogin: z.boolean(),
  /** where a SAML user goes after signing out, so the provider ends its session too */
  samlLogoutUrl: z.string().nullable(),
});
export type LoginConfig = z.infer<typeof loginConfigSchema>;

const loginUrl = z.url({ protocol: /^https?$/ }).max(2000);
export const loginConfigUpdateSchema = z.strictObject({
  ssoLoginUrl: loginUrl.nullable().optional(),
  autoRedirectLogin: z.boolean().optional(),
  samlLogoutUrl: loginUrl.nullable().optional(),
});
export type LoginConfigUpdate = z.infer<typeof loginConfigUpdateSchema>;
