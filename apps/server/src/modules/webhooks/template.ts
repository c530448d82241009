/**
 * Custom webhook payload templates (issue 14): Artifactory's Go-template style `{{ .data.path }}`,
 * `{{ .event_type }}`, `{{ .secrets.NAME }}` — plain field substitution and nothing else: no
 * functions, pipes, conditions or code. A template is checked when the subscription is saved
 * (`checkTemplate`), so a bad field or bad syntax is refused then, never at delivery.
 */

export type TemplatePart = { text: string } | { field: string[] };

const FIELD = /^\.([A-Za-z_][A-Za-z0-9_]*)(?:\.([A-Za-z_][A-Za-z0-9_]*))*$/;
const SEGMENT = /[A-Za-z_][A-Za-z0-9_]*/g;

export class TemplateError extends Error {
  override readonly name = 'TemplateError';
}

/** Splits a template into text and `{{ .a.b }}` fields; throws TemplateError on bad syntax. */
export function parseTemplate(template: string): TemplatePart[] {
  const parts: TemplatePart[] = [];
  let at = 0;
  while (at < template.length) {
    const open = template.indexOf('{{', at);
    const close = template.indexOf('}}', at);
    if (close >= 0 && (open < 0 || close < open))
      throw new TemplateError(`unexpected "}}" at character ${close + 1}`);
    if (open < 0) {
      parts.push({ text: template.slice(at) });
      break;
    }
    if (open > at) parts.push({ text: template.slice(at, open) });
    const end = template.indexOf('}}', open + 2);
    if (end < 0) throw new TemplateError(`"{{" at character ${open + 1} is not closed`);
    // Go's `{{- x -}}` trims surrounding spaces; the markers are accepted, the trimming is not done.
    const inner = template
      .slice(open + 2, end)
      .replace(/^-\s/, '')
      .replace(/\s-$/, '')
      .trim();
    if (inner.includes('{{')) throw new TemplateError(`"{{" at character ${open + 1} is not closed`);
    if (!FIELD.test(inner))
      throw new TemplateError(
        `"{{${template.slice(open + 2, end)}}}" at character ${open + 1}: only fields like {{ .data.path }} are allowed`,
      );
    parts.push({ field: inner.match(SEGMENT) ?? [] });
    at = end + 2;
  }
  return parts;
}

/** Top-level fields of every event, and the data fields each domain's events carry. */
export const EVENT_FIELDS = ['domain', 'event_type', 'data', 'subscription_key', 'source', 'timestamp', 'id'];

const ARTIFACT_DATA = ['repo_key', 'path', 'name', 'sha256', 'size', 'virtual_repo_key'];
const MOVE_DATA = ['source_repo_key', 'source_path', 'target_repo_key', 'target_path'];
const BUILD_DATA = ['build_name', 'build_number', 'build_started', 'build_repo'];
const BUNDLE_DATA = [
  'release_bundle_name',
  'release_bundle_version',
  'release_bundle_size',
  'environment',
  'status',
];

/** The `data` fields a domain's events may carry (what `{{ .data.X }}` may name). */
export const DATA_FIELDS: Record<string, readonly string[]> = {
  artifact: [...ARTIFACT_DATA, ...MOVE_DATA],
  artifact_property: [...ARTIFACT_DATA, 'property_key', 'property_values'],
  docker: [...ARTIFACT_DATA, 'image_name', 'tag', 'platforms'],
  artifact_lifecycle: [...ARTIFACT_DATA],
  build: BUILD_DATA,
  promotion: [...BUILD_DATA, 'status', 'target_repo_key', 'comment'],
  release_bundle: BUNDLE_DATA,
  artifactory_release_bundle: BUNDLE_DATA,
  distribution: [...BUNDLE_DATA, 'destinations'],
  destination: BUNDLE_DATA,
  bundle: BUNDLE_DATA,
  policy: ['policy_name', 'watch_name', 'severity', 'issues', 'repo_key', 'path'],
  user: ['user_name', 'realm'],
};

/**
 * Checks a template against what it may use: the event fields, the domain's data fields and the
 * handler's secret names. Answers a message naming the first problem, or null when it is fine.
 */
export function checkTemplate(
  template: string,
  domain: string,
  secretNames: readonly string[],
): string | null {
  let parts: TemplatePart[];
  try {
    parts = parseTemplate(template);
  } catch (err) {
    return (err as Error).message;
  }
  const data = DATA_FIELDS[domain] ?? [];
  for (const part of parts) {
    if (!('field' in part)) continue;
    const [root, second, ...rest] = part.field;
    const shown = `{{ .${part.field.join('.')} }}`;
    if (root === 'secrets') {
      if (!second) return `${shown}: name a secret, e.g. {{ .secrets.TOKEN }}`;
      if (rest.length > 0 || !secretNames.includes(second))
        return `${shown}: no secret named ${second} in this webhook`;
      continue;
    }
    if (!root || !EVENT_FIELDS.includes(root)) return `${shown}: unknown field ${root}`;
    if (root === 'data') {
      if (second && !data.includes(second)) return `${shown}: ${domain} events have no data field ${second}`;
      continue;
    }
    if (second) return `${shown}: ${root} has no field ${second}`;
  }
  return null;
}

/** Fills a checked template: strings as they are, numbers and booleans as text, objects as JSON, missing as empty. */
export function renderTemplate(template: string, scope: Record<string, unknown>): string {
  return parseTemplate(template)
    .map((part) => {
      if ('text' in part) return part.text;
      let value: unknown = scope;
      for (const name of part.field)
        value =
          value !== null && typeof value === 'object' && Object.hasOwn(value, name)
            ? (value as Record<string, unknown>)[name]
            : undefined;
      if (value === undefined || value === null) return '';
      if (typeof value === 'object') return JSON.stringify(value);
      return String(value);
    })
    .join('');
}
