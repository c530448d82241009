/**
 * spec 000 §4 quick-start wizard: the package types in the spec's order, and each dedicated client flow's tabs,
 * the status flag that completes each tab and the completion messages (spec texts, verbatim).
 */

/** spec 000 §4 selection grid order; registered types the spec does not list come after, alphabetically. */
export const SPEC_TYPE_ORDER = [
  'docker',
  'npm',
  'maven',
  'gradle',
  'go',
  'debian',
  'yum',
  'swift',
  'terraform',
] as const;

const LABELS: Record<string, string> = {
  docker: 'Docker',
  npm: 'Npm',
  maven: 'Maven',
  gradle: 'Gradle',
  go: 'Go',
  debian: 'Debian',
  yum: 'YUM',
  rpm: 'RPM',
  swift: 'Swift',
  terraform: 'Terraform',
  pypi: 'Pypi',
  generic: 'Generic',
  helm: 'Helm',
  nuget: 'NuGet',
  cargo: 'Cargo',
  gems: 'Gems',
};

export const typeLabel = (type: string) => LABELS[type] ?? type.charAt(0).toUpperCase() + type.slice(1);

/** spec 000 §4: YUM shows the rpm icon. */
export const typeIcon = (type: string) => (type === 'yum' ? 'rpm' : type);

/** Sorts the registered types: the spec's order first, then the rest by name. */
export function orderTypes<T extends { type: string }>(types: readonly T[]): T[] {
  const rank = (t: string) => {
    const i = (SPEC_TYPE_ORDER as readonly string[]).indexOf(t);
    return i < 0 ? SPEC_TYPE_ORDER.length : i;
  };
  return [...types].sort((a, b) => rank(a.type) - rank(b.type) || a.type.localeCompare(b.type));
}

/** spec 000 §4, §5: the filter is a case-insensitive pattern match on the type value. */
export function filterTypes<T extends { type: string }>(types: readonly T[], search: string): T[] {
  const term = search.trim();
  if (!term) return [...types];
  const pattern = new RegExp(term.replace(/[.*+?^${}()|[\]\\]/g, '\\$&'), 'i');
  return types.filter((t) => pattern.test(t.type));
}

export type FlowType = 'docker' | 'npm' | 'maven' | 'pypi';
export const FLOW_TYPES: readonly FlowType[] = ['docker', 'npm', 'maven', 'pypi'];
export const hasFlow = (type: string): type is FlowType => (FLOW_TYPES as readonly string[]).includes(type);

export type StatusFlag = 'isAuthenticated' | 'isDownloaded' | 'isPublished';

export interface FlowTab {
  title: string;
  /** The session status flag that completes this tab (spec 000 §3), or null when none does. */
  flag: StatusFlag | null;
  /** The completion message shown once the flag is set. */
  done: string | null;
}

export const NEXT_MESSAGE = "Click on 'Next' to continue";
export const DONE_MESSAGE = "Click 'Done' to go to your packages";

/** spec 000 §4 client flows: tabs 0 to 2 with Next, Back and Done. */
export const FLOWS: Record<FlowType, readonly [FlowTab, FlowTab, FlowTab]> = {
  docker: [
    { title: 'Set Up Your Docker Client', flag: 'isAuthenticated', done: "You're Logged In" },
    { title: 'Pull Your First Image', flag: 'isDownloaded', done: 'Image Pulled Successfully' },
    { title: 'Push Your First Image', flag: 'isPublished', done: 'Image Pushed Successfully' },
  ],
  npm: [
    { title: 'Set Up Your Npm Client', flag: null, done: null },
    {
      title: 'Install Your First Package',
      flag: 'isDownloaded',
      done: 'Package Installed and Cached Successfully',
    },
    { title: 'Publish Your First Package', flag: 'isPublished', done: 'Package Published Successfully' },
  ],
  maven: [
    { title: 'Set Up Your Maven Client', flag: null, done: null },
    {
      title: 'Install Your First Package',
      flag: 'isDownloaded',
      done: 'Your Maven project dependencies have been cached successfully',
    },
    { title: 'Deploy Your First Package', flag: 'isPublished', done: 'Package Deployed Successfully' },
  ],
  pypi: [
    { title: 'Set Up Your Pypi Client', flag: null, done: null },
    {
      title: 'Install Your First Package',
      flag: 'isDownloaded',
      done: 'Package Installed and Cached Successfully',
    },
    { title: 'Publish Your First Package', flag: 'isPublished', done: 'Package Published Successfully' },
  ],
};

/** spec 000 §4: primary button tooltips tell the user to copy and run the command first. */
export const PRIMARY_TOOLTIP = 'Copy the command above and run it in your terminal first';
