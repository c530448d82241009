/**
 * `;name=value` deploy properties after a file's name (Artifactory's matrix parameters:
 * `x.deb;deb.distribution=bookworm;deb.component=main`): the path without them, and the properties,
 * a repeated name keeping every value.
 */
export function splitMatrix(path: string): { path: string; properties: Record<string, string[]> } {
  const [clean = '', ...params] = path.split(';');
  const properties: Record<string, string[]> = {};
  for (const p of params) {
    const eq = p.indexOf('=');
    const k = decodeURIComponent(eq < 0 ? p : p.slice(0, eq));
    if (!k) continue;
    properties[k] = [...(properties[k] ?? []), decodeURIComponent(eq < 0 ? '' : p.slice(eq + 1))];
  }
  return { path: clean, properties };
}
