/** "1.5 MB": bytes for the storage page (binary units, as the server's messages). */
export function formatBytes(n: number): string {
  if (Math.abs(n) < 1024) return `${n} B`;
  const units = ['KB', 'MB', 'GB', 'TB', 'PB'];
  let v = n / 1024;
  let i = 0;
  while (Math.abs(v) >= 1024 && i < units.length - 1) {
    v /= 1024;
    i++;
  }
  return `${v.toFixed(Math.abs(v) < 10 ? 1 : 0)} ${units[i]}`;
}

export const MIB = 1024 * 1024;
