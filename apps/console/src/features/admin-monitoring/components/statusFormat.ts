import { NODE_REMOVABLE_AFTER_MS, type ServiceNode, type ServiceState } from '@granary/contracts';

/** Dark solid colours: white text on them keeps WCAG AA contrast. */
export const STATE_COLOR: Record<ServiceState | 'Online' | 'Offline', string> = {
  HEALTHY: '#1f5f3a',
  Online: '#1f5f3a',
  UNHEALTHY: '#a8071a',
  Offline: '#a8071a',
};

/** `3d 4h`, `2h 5m`, `4m 10s`, `12s`. */
export function formatUptime(seconds: number): string {
  const s = Math.max(0, Math.floor(seconds));
  const d = Math.floor(s / 86_400);
  const h = Math.floor((s % 86_400) / 3_600);
  const m = Math.floor((s % 3_600) / 60);
  if (d > 0) return `${d}d ${h}h`;
  if (h > 0) return `${h}h ${m}m`;
  if (m > 0) return `${m}m ${s % 60}s`;
  return `${s}s`;
}

export function formatTime(iso: string): string {
  const at = new Date(iso);
  return Number.isNaN(at.getTime()) ? iso : at.toLocaleString();
}

/** The server removes a node silent at least this long (issue 15); the button shows only then. */
export function isRemovable(node: ServiceNode, now = Date.now()): boolean {
  return node.status === 'Offline' && now - Date.parse(node.last_heartbeat) >= NODE_REMOVABLE_AFTER_MS;
}
