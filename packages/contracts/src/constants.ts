/**
 * Business constants and limits of the specification, named once and shared by server and console.
 * spec 000 = 000_b083738acee0e70f.txt §9, spec 001 = 001_8b14628b9c64ed72.txt §9.
 */

// spec 000 §9: loader and micro-frontends
export const BASE_PATH = '/ui/';
export const CHUNK_LOAD_TIMEOUT_MS = 120_000;
export const MICROFRONTEND_MOUNT_MAX_MS = 100_000;
export const MICROFRONTEND_CACHE_LIFETIME_MS = 7 * 24 * 60 * 60 * 1000;

// spec 000 §9, spec 001 §9: session and navigation
export const PATH_AFTER_LOGIN_VALIDITY_MS = 60 * 60 * 1000;
export const IDLE_TIMEOUT_MS = 60_000;
export const REMEMBER_ME_DEFAULT = true;
export const ONLINE_NODE_STATUS = 'Online';

// spec 000 §9: timings
export const QUICK_START_WAIT_MS = 4_000;
export const STATUS_POLLING_MS = 3_000;
export const SEARCH_DEBOUNCE_MS = 500;
export const COPY_INDICATOR_MS = 2_000;
export const NOTIFICATION_DURATIONS_MS = [4_500, 3_000] as const;

// spec 000 §9, spec 001 §9: projects
export const PROJECT_KEY_MAX_LENGTH = 128;
export const PROJECT_LEVEL_LIMITS = { single: 1, firstLevel: 100, secondLevel: 100 } as const;
export const DEFAULT_PROJECT = { name: 'Default Project', key: 'dflt' } as const;

// spec 000 §9, spec 001 §9: ports and version thresholds
export const DEFAULT_PORTS = { http: 80, https: 443 } as const;
export const VERSION_THRESHOLDS = { repositoryService: '7.48.0', distribution: '2.16.0' } as const;

// spec 000 §9: quick-start defaults
export const QUICK_START_DEFAULTS = {
  docker: {
    download: { name: 'hello-world', version: 'latest' },
    upload: { name: 'hello-world', version: '1.0.0' },
  },
  npm: { download: { name: 'jfrog-trial-sum-example' }, upload: { name: 'jfrog-npm-trial' } },
  maven: {
    download: { name: 'junit' },
    upload: { name: 'my-app' },
    archetype: { name: 'quickstart', version: '1.4' },
  },
  pypi: { download: { name: 'twine' }, upload: { name: 'hello-jfrog', version: '1.0.0' } },
} as const;

// spec 000 §9: demo
export const DEMO_COUNTER = { steps: 50, intervalMs: 50 } as const;
export const DEMO_MODEL_DELAY_MS = 2_000;

// spec 000 §9: repository types hidden from every listing
export const HIDDEN_REPOSITORY_TYPES = [
  'buildinfo',
  'support',
  'pipeinfo',
  'undefined',
  'supportbundle',
  'p2',
  'vcs',
] as const;

// spec 000 §9, spec 001 §9: browser storage keys
export const STORAGE_KEYS = {
  pathAfterLogin: 'path_after_login', // session storage
  personalizationData: 'personalizationData',
  rtOnlyRemoved: 'RTonlyRemoved',
} as const;

// spec 001 §9: support bundles, logs, retention
export const SUPPORT_BUNDLE_PLACEHOLDER_CLEANUP_MS = 3_000;
export const LOG_DEFAULT_REFRESH_MS = 10_000;
export const LOG_COUNTDOWN_TICK_MS = 1_000;
export const RETENTION_MAX_RETRIES = 3;

// spec 001 §9: packages and search
export const PACKAGE_SEARCH_MIN_CHARS = 3;
export const GRAPHQL_DEFAULT_PAGE_SIZE = 100;
export const GRAPHQL_DEFAULT_SORT = 'name';
export const SECURITY_QUERY_PAGE_SIZE = 25;
export const SECURITY_QUERY_ORDER = { by: 'severity', direction: 'asc' } as const;
export const VULNERABILITY_SEVERITY_COUNT_MIN = 1;
export const XRAY_SEARCH_PAGE_SIZE = 20;
export const XRAY_SEARCH_ORDER = { by: 'last_updated', direction: 'desc' } as const;
/** spec 001 §9 lists "Xray constants 20000 and 3" without their meaning. */
export const XRAY_CONSTANTS = [20_000, 3] as const;
export const P2P_TOP_USAGE = 5;
export const WEBHOOK_LAYOUT_GUTTER = 25;
export const INTEGRATION_CARD_SIZE_PX = { width: 204, height: 218 } as const;

// spec 001 §9: package types
/**
 * Package types laid out like Maven: their repositories take the release/snapshot policy settings
 * (handleReleases, handleSnapshots, allowReleaseRedeploy), which the server validates and the console's
 * repository form shows.
 */
export const MAVEN_LIKE_PACKAGE_TYPES = ['maven', 'gradle', 'ivy', 'sbt'] as const;

/** A package type of `MAVEN_LIKE_PACKAGE_TYPES` (ids as stored on repositories). */
export function isMavenLike(packageType: string): boolean {
  return (MAVEN_LIKE_PACKAGE_TYPES as readonly string[]).includes(packageType);
}

export const SPECIAL_PACKAGE_TYPES = ['maven', 'ivy', 'gradle', 'docker', 'conan'] as const;
export const PACKAGE_TYPE_ALIASES: Readonly<Record<string, string>> = {
  golang: 'go',
  gav: 'maven',
  deb: 'debian',
  rubygems: 'gems',
  terraformmodule: 'terraform',
  terraformprovider: 'terraform',
  'terraform module': 'terraform',
  'terraform provider': 'terraform',
};
export const EXCLUDED_PACKAGE_TYPES = ['dockerV1', 'terraformBackend'] as const;
/** spec 001 §9: a Go package's lead file maps from its .mod to its .zip. */
export const GO_LEAD_FILE_EXTENSION_MAP = { from: '.mod', to: '.zip' } as const;
