import { canonicalPackageType, PACKAGE_SEARCH_MIN_CHARS } from '@granary/contracts';

/**
 * spec 001 §3 search filter and §5 search text syntax: `key:value` tokens, quoted values for spaces, unknown
 * keys treated as name, dates yyyy-mm-dd, arrays as comma lists, objects as key=value pairs.
 */
export interface SearchFilter {
  packageTypes?: string[];
  repositories?: string[];
  name?: string;
  description?: string;
  checksum?: string;
  cve?: string;
  licenses?: string[];
  severities?: string[];
  properties?: Record<string, string>;
  before?: string;
  after?: string;
  propertySets?: string[];
  searchType?: string;
  isChecksum?: boolean;
  path?: string;
  excludeInnerClasses?: boolean;
  searchClassOnly?: boolean;
  pkgType?: string;
  packageQuery?: Record<string, string>;
  version?: string;
  tags?: string[];
  scope?: string;
  branch?: string;
}

type Kind = 'text' | 'list' | 'date' | 'boolean' | 'object';

/** Query key → filter field and value kind (spec 001 §3: packageTypes is `pkg`, repositories `repo`). */
const KEYS: Record<string, { field: keyof SearchFilter; kind: Kind }> = {
  pkg: { field: 'packageTypes', kind: 'list' },
  repo: { field: 'repositories', kind: 'list' },
  name: { field: 'name', kind: 'text' },
  description: { field: 'description', kind: 'text' },
  checksum: { field: 'checksum', kind: 'text' },
  cve: { field: 'cve', kind: 'text' },
  licenses: { field: 'licenses', kind: 'list' },
  severities: { field: 'severities', kind: 'list' },
  properties: { field: 'properties', kind: 'object' },
  before: { field: 'before', kind: 'date' },
  after: { field: 'after', kind: 'date' },
  propertySets: { field: 'propertySets', kind: 'list' },
  searchType: { field: 'searchType', kind: 'text' },
  isChecksum: { field: 'isChecksum', kind: 'boolean' },
  path: { field: 'path', kind: 'text' },
  excludeInnerClasses: { field: 'excludeInnerClasses', kind: 'boolean' },
  searchClassOnly: { field: 'searchClassOnly', kind: 'boolean' },
  pkgType: { field: 'pkgType', kind: 'text' },
  packageQuery: { field: 'packageQuery', kind: 'object' },
  version: { field: 'version', kind: 'text' },
  tags: { field: 'tags', kind: 'list' },
  scope: { field: 'scope', kind: 'text' },
  branch: { field: 'branch', kind: 'text' },
};

export const SEARCH_KEYS = Object.keys(KEYS);

const DATE = /^\d{4}-(0[1-9]|1[0-2])-(0[1-9]|[12]\d|3[01])$/;

export interface ParsedSearch {
  filter: SearchFilter;
  /** One message per value that does not fit its key (the token is then ignored). */
  errors: string[];
}

/** Splits on whitespace outside quotes; quotes (single or double) are removed, their spaces kept. */
export function tokenize(text: string): string[] {
  const tokens: string[] = [];
  let current = '';
  let quote: string | null = null;
  let started = false;
  for (const ch of text) {
    if (quote) {
      if (ch === quote) quote = null;
      else current += ch;
    } else if (ch === '"' || ch === "'") {
      quote = ch;
      started = true;
    } else if (/\s/.test(ch)) {
      if (started) tokens.push(current);
      current = '';
      started = false;
    } else {
      current += ch;
      started = true;
    }
  }
  if (started) tokens.push(current);
  return tokens;
}

const list = (value: string) =>
  value
    .split(',')
    .map((v) => v.trim())
    .filter((v) => v !== '');

/** Parses the toolbar search text into a search filter (spec 001 §5). */
export function parseSearchText(text: string): ParsedSearch {
  const filter: SearchFilter = {};
  const errors: string[] = [];
  const names: string[] = [];
  const record = filter as Record<string, unknown>;
  for (const token of tokenize(text)) {
    const colon = token.indexOf(':');
    const key = colon > 0 ? token.slice(0, colon) : null;
    const spec = key !== null && Object.hasOwn(KEYS, key) ? KEYS[key] : undefined;
    if (!spec || key === null) {
      // Free text, or an unknown key: the whole token is (part of) the name.
      names.push(token);
      continue;
    }
    const value = token.slice(colon + 1).trim();
    if (value === '') continue;
    switch (spec.kind) {
      case 'text':
        if (spec.field === 'name') names.push(value);
        else record[spec.field] = value;
        break;
      case 'list': {
        const values = list(value);
        const mapped = spec.field === 'packageTypes' ? values.map(canonicalPackageType) : values;
        const prior = (record[spec.field] as string[] | undefined) ?? [];
        record[spec.field] = [...prior, ...mapped.filter((v) => !prior.includes(v))];
        break;
      }
      case 'date':
        if (DATE.test(value) && !Number.isNaN(Date.parse(value))) record[spec.field] = value;
        else errors.push(`${key}: dates are written yyyy-mm-dd`);
        break;
      case 'boolean':
        if (value === 'true' || value === 'false') record[spec.field] = value === 'true';
        else errors.push(`${key}: true or false`);
        break;
      case 'object': {
        const object = { ...((record[spec.field] as Record<string, string> | undefined) ?? {}) };
        for (const pair of list(value)) {
          const eq = pair.indexOf('=');
          if (eq <= 0) errors.push(`${key}: pairs are written key=value`);
          else object[pair.slice(0, eq).trim()] = pair.slice(eq + 1).trim();
        }
        if (Object.keys(object).length > 0) record[spec.field] = object;
        break;
      }
    }
  }
  if (names.length > 0) filter.name = names.join(' ');
  return { filter, errors };
}

/** spec 001 §5 / §9: a package search term needs at least 3 characters once `*` and `?` are removed. */
export const PACKAGE_SEARCH_MIN_LENGTH = PACKAGE_SEARCH_MIN_CHARS;
/** What a user is told when a package search term is too short (issue 22: never silently nothing). */
export const PACKAGE_SEARCH_TOO_SHORT = `Type at least ${PACKAGE_SEARCH_MIN_CHARS} characters to search packages (* and ? do not count)`;
export function meetsPackageSearchMinimum(term: string): boolean {
  return term.replace(/[*?]/g, '').trim().length >= PACKAGE_SEARCH_MIN_LENGTH;
}

/**
 * spec 001 §4: when the search type is switched the model resets except the name — the text keeps only its
 * name part (quoted again when it has spaces).
 */
export function keepOnlyName(text: string): string {
  const name = parseSearchText(text).filter.name ?? '';
  return /\s/.test(name.trim()) ? `"${name.trim()}"` : name.trim();
}
