import type { BuildPromotionRequest, BuildRetentionRequest, UserData } from '@granary/contracts';

/**
 * Issue 19 builds screens, as pure functions: who may delete runs and set retention, what the promotion and
 * retention dialogs send, and how a run's numbers read.
 */

/** Deleting runs and setting retention: administrators (the server checks the build permission targets too). */
export function canManageBuilds(user: UserData | null): boolean {
  return user?.admin === true;
}

/** The run details tabs (issue 19: published modules, dependencies, environment, issues, vcs, diff, release history). */
export const RUN_TABS = [
  'modules',
  'dependencies',
  'environment',
  'issues',
  'vcs',
  'diff',
  'history',
] as const;
export type RunTab = (typeof RUN_TABS)[number];
export const RUN_TAB_LABELS: Record<RunTab, string> = {
  modules: 'Published Modules',
  dependencies: 'Dependencies',
  environment: 'Environment',
  issues: 'Issues',
  vcs: 'VCS',
  diff: 'Diff',
  history: 'Release History',
};
/** Artifactory's own run tab names, as old build links carry them (`#/builds/{name}/{number}/{time}/published`). */
const TAB_ALIASES: Record<string, RunTab> = {
  published: 'modules',
  'release-history': 'history',
  releaseHistory: 'history',
  env: 'environment',
};
export function runTabOf(tab: string | undefined): RunTab {
  if ((RUN_TABS as readonly string[]).includes(tab ?? '')) return tab as RunTab;
  return TAB_ALIASES[tab ?? ''] ?? 'modules';
}

export interface PromotionForm {
  status: string;
  comment: string;
  targetRepo: string;
  /** copy keeps the files where they are; move takes them out of their repository. */
  operation: 'copy' | 'move';
  dependencies: boolean;
  dryRun: boolean;
}

export const PROMOTION_DEFAULTS: PromotionForm = {
  status: 'Released',
  comment: '',
  targetRepo: '',
  operation: 'copy',
  dependencies: false,
  dryRun: true,
};

/** What the promotion dialog sends (`POST /api/build/promote/{name}/{number}`); empty fields are left out. */
export function promotionBody(form: PromotionForm): Partial<BuildPromotionRequest> {
  const body: Partial<BuildPromotionRequest> = {
    dryRun: form.dryRun,
    copy: form.operation === 'copy',
    artifacts: true,
    dependencies: form.dependencies,
    failFast: true,
  };
  if (form.status.trim()) body.status = form.status.trim();
  if (form.comment.trim()) body.comment = form.comment.trim();
  if (form.targetRepo) body.targetRepo = form.targetRepo;
  return body;
}

export interface RetentionForm {
  /** Keep at most this many runs (empty: no limit). */
  count: number | null;
  /** Discard runs older than this many days (empty: no limit). */
  days: number | null;
  deleteArtifacts: boolean;
  keep: string[];
}

/** What the retention dialog sends (`POST /api/build/retention/{name}`); days become `minimumBuildDate` (epoch ms). */
export function retentionBody(form: RetentionForm, now = Date.now()): Partial<BuildRetentionRequest> {
  const body: Partial<BuildRetentionRequest> = {
    deleteBuildArtifacts: form.deleteArtifacts,
    buildNumbersNotToBeDiscarded: form.keep,
  };
  if (form.count !== null && form.count >= 0) body.count = Math.floor(form.count);
  if (form.days !== null && form.days > 0) body.minimumBuildDate = now - Math.floor(form.days) * 86_400_000;
  return body;
}

/** Delete a selection of runs: every run selected means the whole build (`deleteAll`). */
export function deleteRunsBody(name: string, selected: string[], all: string[], deleteArtifacts: boolean) {
  const deleteAll = all.length > 0 && all.every((n) => selected.includes(n));
  return { buildName: name, buildNumbers: deleteAll ? [] : selected, deleteArtifacts, deleteAll };
}

/** 83_000 → "1m 23s"; 450 → "450 ms"; null → "". */
export function formatDuration(ms: number | null | undefined): string {
  if (ms === null || ms === undefined || !Number.isFinite(ms) || ms < 0) return '';
  if (ms < 1000) return `${Math.round(ms)} ms`;
  const total = Math.round(ms / 1000);
  const h = Math.floor(total / 3600);
  const m = Math.floor((total % 3600) / 60);
  const s = total % 60;
  if (h > 0) return `${h}h ${m}m`;
  if (m > 0) return `${m}m ${s}s`;
  return `${s}s`;
}

/** A dependency's requestedBy chains, each read nearest first: "lodash ← app" (empty: a direct dependency). */
export function requestedByText(chains: string[][]): string[] {
  return chains.filter((c) => c.length > 0).map((c) => c.join(' ← '));
}

export interface VulnerabilityCounts {
  critical: number;
  high: number;
  medium: number;
  low: number;
  unknown: number;
}
/** The non-zero severities, worst first, e.g. [['critical', 1], ['high', 2]]; null when not scanned. */
export function vulnerabilityBadges(
  counts: VulnerabilityCounts | null,
): [keyof VulnerabilityCounts, number][] | null {
  if (!counts) return null;
  const order: (keyof VulnerabilityCounts)[] = ['critical', 'high', 'medium', 'low', 'unknown'];
  return order.filter((k) => counts[k] > 0).map((k) => [k, counts[k]]);
}

/** The latest promotion status of a run's statuses (newest last), or null. */
export function latestStatus(statuses: { status: string }[]): string | null {
  return statuses.length > 0 ? (statuses[statuses.length - 1]?.status ?? null) : null;
}
