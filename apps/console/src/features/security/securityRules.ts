import type { IssueSeverity, ScanStatus } from '@granary/contracts';

/** spec 000 §2: the teaser redirects here; the screen's tabs are sub-paths (`/security_policies/{tab}`). */
export const SECURITY_PATH = '/security_policies';

export type SecurityTab =
  | 'violations'
  | 'issues'
  | 'licenses'
  | 'policies'
  | 'watches'
  | 'ignore-rules'
  | 'custom-issues'
  | 'indexed-repos'
  | 'source-repos'
  | 'advisories';

export const SECURITY_TABS: { key: SecurityTab; label: string; adminOnly?: boolean }[] = [
  { key: 'violations', label: 'Violations' },
  { key: 'issues', label: 'Security issues' },
  { key: 'licenses', label: 'Licences' },
  { key: 'watches', label: 'Watches', adminOnly: true },
  { key: 'policies', label: 'Policies', adminOnly: true },
  { key: 'ignore-rules', label: 'Ignore rules', adminOnly: true },
  { key: 'custom-issues', label: 'Custom issues', adminOnly: true },
  { key: 'indexed-repos', label: 'Indexed repositories', adminOnly: true },
  // issue 18: scans of the git repositories chosen on an integration.
  { key: 'source-repos', label: 'Source Repositories', adminOnly: true },
  { key: 'advisories', label: 'Advisory database', adminOnly: true },
];

export const securityTabPath = (tab: SecurityTab) => `${SECURITY_PATH}/${tab}`;

/** Dark solid colours: white text on them keeps WCAG AA contrast (antd's light presets do not). */
export const SEVERITY_COLOURS: Record<string, string> = {
  critical: '#820014',
  high: '#a8071a',
  medium: '#ad4e00',
  low: '#614700',
  info: '#0050b3',
  unknown: '#434343',
  skipped: '#434343',
};

export const severityColour = (severity: IssueSeverity | string) =>
  SEVERITY_COLOURS[severity.toLowerCase()] ?? SEVERITY_COLOURS.unknown;

/** spec 001 §3 scan status strings as shown; 'not scanned' reads 'Not Scanned' (spec 001 §8 package state). */
export function scanStatusLabel(status: ScanStatus): string {
  return status === 'not scanned' ? 'Not Scanned' : status;
}

/** `pkg:npm/lodash@4.17.20` → `lodash 4.17.20` for a table cell (the purl goes in a title). */
export function componentLabel(purl: string): string {
  const match = /^pkg:[^/]+\/(.+?)(?:@([^?#]+))?(?:[?#].*)?$/.exec(purl);
  if (!match) return purl;
  const name = decodeURIComponent(match[1] ?? '');
  return match[2] ? `${name} ${decodeURIComponent(match[2])}` : name;
}

/** Today as `yyyy-mm-dd` (the expiry date input's minimum). */
export const todayIso = (now = new Date()) => now.toISOString().slice(0, 10);

/** The expiry date input's `yyyy-mm-dd` → the end of that day, UTC, as ISO date-time. */
export const expiryDateTime = (date: string) => new Date(`${date}T23:59:59.000Z`).toISOString();

export const formatDateTime = (iso: string | null | undefined) => {
  if (!iso) return '—';
  const d = new Date(iso);
  return Number.isNaN(d.getTime())
    ? iso
    : d.toLocaleString(undefined, { dateStyle: 'medium', timeStyle: 'short' });
};
