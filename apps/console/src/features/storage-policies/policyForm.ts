import type { RetentionPolicy, RetentionPolicyInput } from '@granary/contracts';

/** The policy editor's fields (numbers empty = rule off). */
export interface PolicyFormValues {
  name: string;
  description: string;
  enabled: boolean;
  /** Issue 21: a policy applies to repositories it names, or to every local repository of one project. */
  scope: 'repositories' | 'project';
  repositories: string[];
  projectKey: string | null;
  action: 'delete' | 'archive';
  intervalHours: number | null;
  keepLastVersions: number | null;
  olderThanDays: number | null;
  notDownloadedDays: number | null;
  keepPatterns: string[];
  keepProperties: string[];
  keepReferenced: boolean;
  mavenSnapshotKeep: number | null;
  ociKeepTags: number | null;
  ociUntaggedDays: number | null;
}

export const EMPTY_POLICY: PolicyFormValues = {
  name: '',
  description: '',
  enabled: true,
  scope: 'repositories',
  repositories: [],
  projectKey: null,
  action: 'delete',
  intervalHours: 24,
  keepLastVersions: null,
  olderThanDays: null,
  notDownloadedDays: null,
  keepPatterns: [],
  keepProperties: [],
  keepReferenced: true,
  mavenSnapshotKeep: null,
  ociKeepTags: null,
  ociUntaggedDays: null,
};

const RULES = [
  'keepLastVersions',
  'olderThanDays',
  'notDownloadedDays',
  'mavenSnapshotKeep',
  'ociKeepTags',
  'ociUntaggedDays',
] as const;

export function toFormValues(p: RetentionPolicy): PolicyFormValues {
  return {
    name: p.name,
    description: p.description,
    enabled: p.enabled,
    scope: p.repositories.length === 0 && p.projectKey ? 'project' : 'repositories',
    repositories: p.repositories,
    projectKey: p.projectKey,
    action: p.action,
    intervalHours: p.intervalHours,
    ...p.rules,
  };
}

/** What the editor sends; an empty number is no rule. */
export function toPolicyInput(v: PolicyFormValues): RetentionPolicyInput {
  const num = (n: number | null | undefined) => (typeof n === 'number' && Number.isFinite(n) ? n : null);
  return {
    name: v.name.trim(),
    description: v.description ?? '',
    enabled: v.enabled,
    repositories: v.scope === 'project' ? [] : v.repositories,
    projectKey: v.scope === 'project' ? (v.projectKey ?? null) : null,
    action: v.action,
    intervalHours: num(v.intervalHours),
    rules: {
      ...Object.fromEntries(RULES.map((r) => [r, num(v[r])])),
      keepPatterns: v.keepPatterns ?? [],
      keepProperties: v.keepProperties ?? [],
      keepReferenced: v.keepReferenced,
    },
  };
}

/** At least one rule that removes something (the server refuses a policy without). */
export const hasRemovingRule = (v: PolicyFormValues) => RULES.some((r) => typeof v[r] === 'number');

export function formatBytes(n: number): string {
  if (n < 1024) return `${n} B`;
  const units = ['KB', 'MB', 'GB', 'TB'];
  let v = n / 1024;
  let i = 0;
  while (v >= 1024 && i < units.length - 1) {
    v /= 1024;
    i++;
  }
  return `${v.toFixed(v < 10 ? 1 : 0)} ${units[i]}`;
}

/** How a policy's schedule reads in the list. */
export const scheduleLabel = (hours: number | null) =>
  hours == null
    ? 'Manual'
    : hours % 24 === 0
      ? `Every ${hours / 24} day${hours === 24 ? '' : 's'}`
      : `Every ${hours} h`;
