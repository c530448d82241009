import { z } from 'zod';

// Git integrations (issue 18, spec 001 §2 "Integrations", §3 "Git integration form", "Integration, vendor and
// groups", §4, §5, §6, §7 "Integrations", §8). Written by the console helper because it was missing after the
// agreed wait; the server module (modules/integrations) answers these shapes. Admins only (§6), every route checks.
//
// Console API (all under `/ui/api/v1/`):
//   GET    integrations                          → IntegrationGroup[] (the `git` group: available + vendor items)
//   GET    integrations/{type}                   type `git` → VendorItem[]
//   POST   integrations/testConnection           body GitIntegrationForm → TestConnectionResult; a failure
//                                                answers 4xx/502 (the console says INTEGRATION_MESSAGES.testFailed)
//   POST   integrations                          body GitIntegrationForm → the integration key as plain data (a JSON string)
//   PUT    integration/{integrationKey}          body GitIntegrationForm (token '' or absent keeps the stored one) → GitIntegration
//   DELETE integration/{key}
//   GET    xray/ui/vcs_integrations              → ConnectedIntegration[] (entries with integration_id)
//   GET    integration/getIntegrations           → ConnectedIntegration[]
//   GET    integration/{key}/repositories        → VcsRepository[] (the vendor's, through its API; `selected` marks the scanned ones)
//   PUT    integration/{key}/repositories        body RepositorySelection → VcsRepository[]; queues a scan of the newly chosen ones
//   POST   integration/{key}/scan                body {repositories?: string[]} → 202; queues scans (job)
//   GET    integration/{key}/scans               → RepositoryScan[] (one per selected repository, the latest)

/** spec 001 §2 vendor names (route `integrations/{vendorName}`). */
export const GIT_VENDOR_NAMES = ['github', 'gitlab', 'bitbucket_cloud', 'bitbucket_server'] as const;
export type GitVendorName = (typeof GIT_VENDOR_NAMES)[number];

/** spec 001 §3 vendor ids: unknown 0, GitHub 1, GitLab 2, Bitbucket Cloud 3, Bitbucket Server 4. */
export const VENDOR_ID_UNKNOWN = 0;
export const VENDOR_IDS: Record<GitVendorName, number> = {
  github: 1,
  gitlab: 2,
  bitbucket_cloud: 3,
  bitbucket_server: 4,
};
export const vendorNameOf = (id: number): GitVendorName | null =>
  (Object.entries(VENDOR_IDS).find(([, v]) => v === id)?.[0] as GitVendorName | undefined) ?? null;

export const GIT_VENDOR_DISPLAY_NAMES: Record<GitVendorName, string> = {
  github: 'GitHub',
  gitlab: 'GitLab',
  bitbucket_cloud: 'Bitbucket Cloud',
  bitbucket_server: 'Bitbucket Server',
};

/** The vendors' public API roots, the form's default URL. */
export const GIT_VENDOR_DEFAULT_URLS: Record<GitVendorName, string> = {
  github: 'https://api.github.com',
  gitlab: 'https://gitlab.com',
  bitbucket_cloud: 'https://api.bitbucket.org',
  bitbucket_server: 'https://bitbucket.example.com',
};

/** spec 001 §3 integration type: unknown 0, Git 1. Kinds: git, ide, cli. */
export const INTEGRATION_TYPES = { unknown: 0, git: 1 } as const;
export const INTEGRATION_KINDS = ['git', 'ide', 'cli'] as const;
export type IntegrationKind = (typeof INTEGRATION_KINDS)[number];

/** Products an integration serves (spec 001 §2 service icons). */
export const INTEGRATION_PRODUCTS = ['xray', 'pipelines'] as const;
export type IntegrationProduct = (typeof INTEGRATION_PRODUCTS)[number];

/** spec 001 §4 card status. */
export const INTEGRATION_CARD_STATUSES = ['CONFIGURED', 'CONNECTED', 'DISCONNECTED'] as const;

/** spec 001 §5 and §8. */
export const INTEGRATION_MESSAGES = {
  userNameRequired: 'User name is required',
  tokenRequired: 'Token is required',
  nameRequired: 'Integration name is required',
  testFailed: 'Connection test failed, please check your credentials',
  created: 'Successfully created',
  createFailed: 'Error while creating integration',
  updated: 'Successfully updated',
  updateFailed: 'Error while updating integration',
  deleted: 'Successfully deleted',
  deleteFailed: 'Error while deleting integration',
  connectService: 'Connect a service',
} as const;

const required = (message: string, max: number) => z.string().trim().min(1, message).max(max);

/** spec 001 §3 git integration form. One reading gives vendorName and integrationType as numbers (strings coerced). */
export const gitIntegrationFormSchema = z.object({
  userName: required(INTEGRATION_MESSAGES.userNameRequired, 256),
  integrationName: required(INTEGRATION_MESSAGES.nameRequired, 128),
  /** Write-only. On update, '' or absent keeps the stored token. */
  token: z.string().max(4096).optional().default(''),
  url: z
    .string()
    .trim()
    .min(1)
    .max(2048)
    .refine((v) => {
      try {
        const u = new URL(v);
        return u.protocol === 'http:' || u.protocol === 'https:';
      } catch {
        return false;
      }
    }, 'Enter a valid URL'),
  vendorName: z.coerce.number().int().min(1).max(4),
  integrationType: z.coerce.number().int().default(INTEGRATION_TYPES.git),
  integrationKey: z.string().max(128).optional(),
  products: z.array(z.enum(INTEGRATION_PRODUCTS)).optional(),
});
export type GitIntegrationForm = z.input<typeof gitIntegrationFormSchema>;

/** spec 001 §3 integration: name, url, products, updatedOn, key — plus the vendor, user, created and token tail. */
export const gitIntegrationSchema = z.object({
  key: z.string(),
  name: z.string(),
  url: z.string(),
  vendorName: z.enum(GIT_VENDOR_NAMES),
  userName: z.string(),
  products: z.array(z.enum(INTEGRATION_PRODUCTS)),
  /** The token's last four characters (the token itself is never answered). */
  tokenLast4: z.string(),
  /** ISO 8601. */
  createdOn: z.string(),
  updatedOn: z.string(),
});
export type GitIntegration = z.infer<typeof gitIntegrationSchema>;

/** spec 001 §3 vendor item. */
export const vendorItemSchema = z.object({
  id: z.number().int(),
  name: z.enum(GIT_VENDOR_NAMES),
  displayName: z.string(),
  integrations: z.array(gitIntegrationSchema),
  /** A product is configured on one of its integrations. */
  configured: z.boolean(),
  configuredServices: z.array(
    z.object({
      serviceName: z.enum(INTEGRATION_PRODUCTS),
      connections: z.number().int(),
      connected: z.boolean(),
    }),
  ),
  products: z.array(z.enum(INTEGRATION_PRODUCTS)),
});
export type VendorItem = z.infer<typeof vendorItemSchema>;

/** spec 001 §3 integration group: type, items, available, name. */
export const integrationGroupSchema = z.object({
  type: z.enum(INTEGRATION_KINDS),
  name: z.string(),
  /** Git: the git repo scanning feature is supported here (the console also requires an admin). */
  available: z.boolean(),
  items: z.array(vendorItemSchema),
});
export type IntegrationGroup = z.infer<typeof integrationGroupSchema>;

/** spec 001 §3 connected integration; the xray list adds integration_id. */
export const connectedIntegrationSchema = z.object({
  key: z.string(),
  vendorName: z.enum(GIT_VENDOR_NAMES),
  products: z.array(z.enum(INTEGRATION_PRODUCTS)),
  integration_id: z.string().optional(),
});
export type ConnectedIntegration = z.infer<typeof connectedIntegrationSchema>;

/** `POST integrations/testConnection`: who the token is, its scopes and expiry, what it may do. */
export const testConnectionResultSchema = z.object({
  identity: z.object({
    login: z.string(),
    name: z.string().nullish(),
    id: z.union([z.string(), z.number()]).nullish(),
  }),
  scopes: z.array(z.string()),
  /** ISO 8601, or null when the vendor does not tell or the token does not expire. */
  expiresAt: z.string().nullable(),
  capabilities: z.object({
    readRepositories: z.boolean(),
    comment: z.boolean(),
    openPullRequests: z.boolean(),
    commitStatus: z.boolean(),
  }),
});
export type TestConnectionResult = z.infer<typeof testConnectionResultSchema>;

/** A repository of the vendor, as `integration/{key}/repositories` answers it. */
export const vcsRepositorySchema = z.object({
  /** `owner/name` (GitLab: the path with namespace; Bitbucket Server: `PROJECT/slug`). */
  fullName: z.string(),
  name: z.string(),
  owner: z.string(),
  defaultBranch: z.string().nullable(),
  private: z.boolean(),
  url: z.string(),
  selected: z.boolean(),
});
export type VcsRepository = z.infer<typeof vcsRepositorySchema>;

export const repositorySelectionSchema = z.object({
  repositories: z.array(z.string().min(1).max(512)).max(1000),
});
export type RepositorySelection = z.infer<typeof repositorySelectionSchema>;

export const repositoryFindingSchema = z.object({
  manifest: z.string(),
  ecosystem: z.string(),
  package: z.string(),
  version: z.string(),
  advisoryId: z.string(),
  severity: z.string(),
  summary: z.string(),
  fixedVersions: z.array(z.string()),
});
export type RepositoryFinding = z.infer<typeof repositoryFindingSchema>;

/** `GET integration/{key}/scans`: the latest scan of each selected repository. */
export const repositoryScanSchema = z.object({
  repository: z.string(),
  status: z.enum(['queued', 'running', 'done', 'failed']),
  /** ISO 8601 when done or failed. */
  scannedAt: z.string().nullable(),
  error: z.string().nullable(),
  manifests: z.array(z.string()),
  components: z.number().int(),
  findings: z.array(repositoryFindingSchema),
  licenses: z.array(z.object({ package: z.string(), version: z.string(), license: z.string() })),
});
export type RepositoryScan = z.infer<typeof repositoryScanSchema>;
