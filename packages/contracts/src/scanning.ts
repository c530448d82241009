import { z } from 'zod';

/**
 * Scanning and SBOM (issue 16; spec 001 §1, §3 "Scanning", §4, §7 "Security scanning", §8, §9): the
 * shapes the server answers and the console reads. Xray's public REST paths (`/xray/api/v2/policies`,
 * `/xray/api/v2/watches`, `/xray/api/v1/ignore_rules`) use Xray's own JSON, also described here.
 */

/** spec 001 §3: the scan status strings, exactly. */
export const SCAN_STATUSES = [
  'scan failed',
  'not supported',
  'in progress',
  'not scanned',
  'scanned',
] as const;
export type ScanStatus = (typeof SCAN_STATUSES)[number];
export const scanStatusSchema = z.enum(SCAN_STATUSES);

/** Severities of a finding, most severe first (spec 001 §3 lists High, Medium, Low, Unknown; OSV/CVSS add Critical). */
export const ISSUE_SEVERITIES = ['Critical', 'High', 'Medium', 'Low', 'Unknown'] as const;
export type IssueSeverity = (typeof ISSUE_SEVERITIES)[number];
export const issueSeveritySchema = z.enum(ISSUE_SEVERITIES);

/** spec 001 §3: the violations filter, 'active' by default. */
export const VIOLATION_FILTERS = ['active', 'ignored', 'all'] as const;
export type ViolationFilter = (typeof VIOLATION_FILTERS)[number];
export const DEFAULT_VIOLATION_FILTER: ViolationFilter = 'active';

/** OSV ecosystems Granary matches (others are stored and matched where a comparator exists). */
export const SCAN_ECOSYSTEMS = [
  'npm',
  'PyPI',
  'Maven',
  'Go',
  'crates.io',
  'RubyGems',
  'NuGet',
  'Debian',
  'Alpine',
] as const;

// ---------------------------------------------------------------------------------------------
// Advisory database

export const advisoryImportResultSchema = z.object({
  imported: z.number().int(),
  updated: z.number().int(),
  /** records per ecosystem in this import (new or changed) */
  ecosystems: z.record(z.string(), z.number().int()),
  /** records left as they were (same `modified`) */
  unchanged: z.number().int().optional(),
  /** records that could not be read (counted and skipped) */
  skipped: z.number().int().optional(),
});
export type AdvisoryImportResult = z.infer<typeof advisoryImportResultSchema>;

/** `GET /api/scanning/advisories/status` */
export const advisoryStatusSchema = z.object({
  total: z.number().int(),
  /** records per ecosystem */
  ecosystems: z.record(z.string(), z.number().int()),
  lastImport: z
    .object({
      at: z.string(),
      source: z.string(),
      imported: z.number().int(),
      updated: z.number().int(),
      by: z.string().nullable(),
    })
    .nullable(),
});
export type AdvisoryStatus = z.infer<typeof advisoryStatusSchema>;

// ---------------------------------------------------------------------------------------------
// Scan results

/** A component found in an artifact (a package in a tarball, an OS package in an image layer…). */
export const scannedComponentSchema = z.object({
  /** package URL, e.g. `pkg:npm/lodash@4.17.20` — the component's id */
  purl: z.string(),
  ecosystem: z.string(),
  name: z.string(),
  version: z.string(),
  licenses: z.array(z.string()),
  /** true for the artifact itself and what it declares directly */
  direct: z.boolean(),
  /** where it was found (`layer sha256:…/var/lib/dpkg/status`, `package/node_modules/x/package.json`) */
  location: z.string().optional(),
});
export type ScannedComponent = z.infer<typeof scannedComponentSchema>;

/** One vulnerability of one component, as a scan found it. */
export const securityIssueSchema = z.object({
  /** the advisory id (OSV id: GHSA-…, PYSEC-…, CVE-…, DSA-…) */
  issueId: z.string(),
  /** CVE ids among the advisory's aliases */
  cves: z.array(z.string()),
  summary: z.string(),
  severity: issueSeveritySchema,
  cvssScore: z.number().nullable(),
  cvssVector: z.string().nullable(),
  componentPurl: z.string(),
  componentName: z.string(),
  componentVersion: z.string(),
  /** versions that fix it, for this component's ecosystem */
  fixedVersions: z.array(z.string()),
  /** artifact path → component: the chain that brings the component in */
  impactPath: z.array(z.string()),
  references: z.array(z.string()).optional(),
});
export type SecurityIssue = z.infer<typeof securityIssueSchema>;

/** The scan of one stored artifact (a package version's lead file, an image manifest). */
export const artifactScanSchema = z.object({
  repoKey: z.string(),
  path: z.string(),
  status: scanStatusSchema,
  /** set with 'scan failed' */
  error: z.string().nullable().optional(),
  scannedAt: z.string().nullable(),
  components: z.array(scannedComponentSchema),
  issues: z.array(securityIssueSchema),
  licenses: z.array(z.string()),
  /** counts by lower-case severity, zero counts dropped (spec 001 §3) */
  vulnerabilities: z.record(z.string(), z.number().int()),
  /** blocked by a policy (`block_download`): the reason shown to clients */
  blocked: z.string().nullable().optional(),
});
export type ArtifactScan = z.infer<typeof artifactScanSchema>;

/** Console: scan status call (spec 001 §7 "Scan status takes type and data") — `POST /xray/ui/scanStatus`. */
export const scanStatusRequestSchema = z.object({
  type: z.enum(['artifact', 'version', 'repository']),
  data: z.object({
    repoKey: z.string(),
    path: z.string().optional(),
    packageId: z.string().optional(),
    version: z.string().optional(),
  }),
});
export const scanStatusAnswerSchema = z.object({
  status: scanStatusSchema,
  scannedAt: z.string().nullable(),
});

/** Console: scan now (its answer is not read) — `POST /xray/ui/scanNow`, same body as scan status. */
export const scanNowRequestSchema = scanStatusRequestSchema;

// ---------------------------------------------------------------------------------------------
// Policies, watches, violations, ignore rules (Xray's model and JSON)

export const xrayPolicyRuleSchema = z.object({
  name: z.string().min(1),
  priority: z.number().int().min(1),
  criteria: z.object({
    /** security rules */
    min_severity: z.enum(['All Severities', 'Critical', 'High', 'Medium', 'Low']).optional(),
    cvss_range: z.object({ from: z.number().min(0).max(10), to: z.number().min(0).max(10) }).optional(),
    /** specific advisory or CVE ids */
    vulnerability_ids: z.array(z.string()).optional(),
    fix_version_dependant: z.boolean().optional(),
    /** licence rules */
    allowed_licenses: z.array(z.string()).optional(),
    banned_licenses: z.array(z.string()).optional(),
    allow_unknown: z.boolean().optional(),
  }),
  actions: z
    .object({
      block_download: z.object({ active: z.boolean(), unscanned: z.boolean() }).optional(),
      /** webhook subscription keys notified (event group `policy`) */
      webhooks: z.array(z.string()).optional(),
      fail_build: z.boolean().optional(),
      block_release_bundle_distribution: z.boolean().optional(),
      notify_deployer: z.boolean().optional(),
      notify_watch_recipients: z.boolean().optional(),
    })
    .default({}),
});
export type XrayPolicyRule = z.infer<typeof xrayPolicyRuleSchema>;

/** `/xray/api/v2/policies` (Xray's JSON). */
export const xrayPolicySchema = z.object({
  name: z.string().min(1).max(128),
  description: z.string().optional(),
  type: z.enum(['security', 'license']),
  rules: z.array(xrayPolicyRuleSchema).min(1),
  author: z.string().optional(),
  created: z.string().optional(),
  modified: z.string().optional(),
});
export type XrayPolicy = z.infer<typeof xrayPolicySchema>;

/** `/xray/api/v2/watches` (Xray's JSON). */
export const xrayWatchSchema = z.object({
  general_data: z.object({
    id: z.string().optional(),
    name: z.string().min(1).max(128),
    description: z.string().optional(),
    active: z.boolean().default(true),
  }),
  project_resources: z
    .object({
      resources: z.array(
        z.object({
          type: z.enum([
            'repository',
            'all-repos',
            'build',
            'all-builds',
            'releaseBundle',
            'all-releaseBundles',
          ]),
          bin_mgr_id: z.string().optional(),
          name: z.string().optional(),
        }),
      ),
    })
    .default({ resources: [] }),
  assigned_policies: z
    .array(z.object({ name: z.string(), type: z.enum(['security', 'license']) }))
    .default([]),
  watch_recipients: z.array(z.string()).optional(),
});
export type XrayWatch = z.infer<typeof xrayWatchSchema>;

/** `/xray/api/v1/ignore_rules` (Xray's JSON). A justification (`notes`) and an expiry are required here. */
export const xrayIgnoreRuleSchema = z.object({
  id: z.string().optional(),
  notes: z.string().trim().min(1, 'A justification is required'),
  /** ISO date-time; required */
  expiration_date: z.string().min(1, 'An expiry date is required'),
  /** ignore once (this violation only) or always (every match of the filters) */
  ignore_filters: z.object({
    vulnerabilities: z.array(z.string()).optional(),
    cves: z.array(z.string()).optional(),
    licenses: z.array(z.string()).optional(),
    watches: z.array(z.string()).optional(),
    policies: z.array(z.string()).optional(),
    component: z.array(z.object({ name: z.string(), version: z.string().optional() })).optional(),
    artifact: z
      .array(z.object({ name: z.string(), version: z.string().optional(), path: z.string().optional() }))
      .optional(),
    repositories: z.array(z.string()).optional(),
    /** ignore once: this violation only */
    violation_id: z.string().optional(),
  }),
  author: z.string().optional(),
  created: z.string().optional(),
  is_expired: z.boolean().optional(),
});
export type XrayIgnoreRule = z.infer<typeof xrayIgnoreRuleSchema>;

/** A violation: a finding (vulnerability or licence) that a watch's policy rule matched. */
export const violationSchema = z.object({
  id: z.string(),
  type: z.enum(['security', 'license']),
  severity: issueSeveritySchema,
  /** advisory id, or the licence */
  issueId: z.string(),
  summary: z.string(),
  watch: z.string(),
  policy: z.string(),
  rule: z.string(),
  repoKey: z.string(),
  path: z.string(),
  componentPurl: z.string(),
  /** blocks downloads */
  blocking: z.boolean(),
  /** an ignore rule applies */
  ignored: z.boolean(),
  ignoreRuleId: z.string().nullable(),
  created: z.string(),
});
export type Violation = z.infer<typeof violationSchema>;

/** `POST /xray/ui/violations` — 25 a page, by severity ascending by default (spec 001 §9). */
export const violationsQuerySchema = z.object({
  filter: z.enum(VIOLATION_FILTERS).default('active'),
  type: z.enum(['security', 'license']).optional(),
  repoKey: z.string().optional(),
  watch: z.string().optional(),
  search: z.string().optional(),
  page: z.number().int().min(1).default(1),
  pageSize: z.number().int().min(1).max(500).default(25),
  orderBy: z.enum(['severity', 'created', 'issueId']).default('severity'),
  direction: z.enum(['asc', 'desc']).default('asc'),
});
export type ViolationsQuery = z.input<typeof violationsQuerySchema>;
export const violationsPageSchema = z.object({ total: z.number().int(), rows: z.array(violationSchema) });

/** `POST /xray/ui/securityIssues` — the vulnerabilities found anywhere (25 a page). */
export const securityIssuesQuerySchema = z.object({
  search: z.string().optional(),
  severity: issueSeveritySchema.optional(),
  page: z.number().int().min(1).default(1),
  pageSize: z.number().int().min(1).max(500).default(25),
});
export const securityIssueRowSchema = z.object({
  issueId: z.string(),
  cves: z.array(z.string()),
  summary: z.string(),
  severity: issueSeveritySchema,
  cvssScore: z.number().nullable(),
  /** artifacts affected */
  artifacts: z.number().int(),
  components: z.array(z.string()),
  fixedVersions: z.array(z.string()),
});
export const securityIssuesPageSchema = z.object({
  total: z.number().int(),
  rows: z.array(securityIssueRowSchema),
});

/** `GET /xray/ui/licenses` — licences found (SPDX ids, unknown ones verbatim) with counts. */
export const licenseRowSchema = z.object({
  name: z.string(),
  fullName: z.string().nullable(),
  custom: z.boolean(),
  components: z.number().int(),
  artifacts: z.number().int(),
});

/** Custom licence (spec 001 §7 custom licence POST/DELETE) — `/xray/ui/customLicense`. */
export const customLicenseSchema = z.object({
  name: z.string().trim().min(1).max(128),
  fullName: z.string().max(256).optional(),
  url: z.string().max(2048).optional(),
});
export type CustomLicense = z.infer<typeof customLicenseSchema>;

/** Custom issue (spec 001 §7 custom issue CRUD) — an admin-written advisory, matched like OSV ones. */
export const customIssueSchema = z.object({
  id: z.string().trim().min(1).max(128),
  summary: z.string().trim().min(1).max(512),
  description: z.string().max(10_000).optional(),
  severity: issueSeveritySchema,
  cves: z.array(z.string()).default([]),
  components: z
    .array(
      z.object({
        ecosystem: z.string(),
        name: z.string(),
        /** affected versions: OSV-style ranges as text, e.g. `>=1.0.0 <1.2.3`, or exact versions */
        vulnerableVersions: z.array(z.string()).default([]),
        fixedVersions: z.array(z.string()).default([]),
      }),
    )
    .min(1),
});
export type CustomIssue = z.infer<typeof customIssueSchema>;

/** Indexed repositories (`indexedReposList`): `GET/PUT /xray/ui/indexedRepos`. */
export const indexedReposSchema = z.object({
  indexed: z.array(z.object({ name: z.string(), pkgType: z.string(), type: z.string() })),
  notIndexed: z.array(z.object({ name: z.string(), pkgType: z.string(), type: z.string() })),
});
export const indexedReposWriteSchema = z.object({ indexed: z.array(z.string()) });

/**
 * The toolbar's "Xray security and compliance" search (spec 001 §2, §7 `POST /xray/ui/component/paginatedsearch`,
 * §9: 20 rows a page, ordered by last_updated descending): scanned components and artifacts whose name,
 * purl, issue id or CVE contains the query, among what the caller may read.
 */
export const componentSearchQuerySchema = z.object({
  query: z.string().trim().min(1).max(256),
  page: z.number().int().min(1).default(1),
  pageSize: z.number().int().min(1).max(200).default(20),
});
export const componentSearchRowSchema = z.object({
  /** the component's purl */
  componentId: z.string(),
  name: z.string(),
  version: z.string(),
  pkgType: z.string(),
  repoKey: z.string(),
  /** the artifact that contains it */
  path: z.string(),
  /** counts by lower-case severity, zero counts dropped */
  vulnerabilities: z.record(z.string(), z.number().int()),
  /** the issue ids (and CVEs) that matched the query, when the query named one */
  issues: z.array(z.string()),
  licenses: z.array(z.string()),
  lastUpdated: z.string(),
});
export type ComponentSearchRow = z.infer<typeof componentSearchRowSchema>;
export const componentSearchPageSchema = z.object({
  total: z.number().int(),
  rows: z.array(componentSearchRowSchema),
});
