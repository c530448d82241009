import { redactText as redactLogText } from '../../../platform/logger/index.ts';

/** What a redacted value becomes in a support bundle. */
export const BUNDLE_REDACTED = '**redacted**';

/**
 * Keys whose values are secrets at any depth: passwords, secrets, tokens, keys (but not the plain
 * identifiers `key`, `repoKey`, `projectKey`…), credentials, cookies, Authorization values.
 */
const SECRET_KEY =
  /pass(word|wd|phrase)?|secret|token|credential|cookie|authori[sz]ation|api[-_]?key|private[-_]?key|signing[-_]?key|master[-_]?key|access[-_]?key|session[-_]?id|signature|otp|seed|salt|(^|[a-z0-9_-])(key|keys)$/i;
/** Identifiers that end in "key" but are names, not secrets. */
const NAME_KEYS = new Set(
  [
    'key',
    'keys',
    'repokey',
    'repo_key',
    'repositorykey',
    'projectkey',
    'project_key',
    'subscriptionkey',
    'subscription_key',
    'integrationkey',
    'packagekey',
    'dedupekey',
    'sortkey',
    'lockkey',
    'routekey',
  ].map((k) => k.toLowerCase()),
);
/** userinfo in URLs: scheme://user:password@host (also scheme://token@host). */
const URL_CREDENTIALS = /\b([a-z][a-z0-9+.-]*:\/\/)([^\s:/@"']+)(:[^\s@/"']*)?@/gi;
/** Sealed secret envelopes of platform/secrets (`gs1.<key id>.<…>`, six dot-separated parts). */
const SEALED = /\bgs1\.[0-9a-f]{16}(\.[A-Za-z0-9_-]+){4}/g;

/** Shorter values are not scrubbed from free text (they would match ordinary words). */
const MIN_SECRET_LENGTH = 6;

export function isSecretKey(name: string): boolean {
  return !NAME_KEYS.has(name.toLowerCase()) && SECRET_KEY.test(name);
}

const escapeRegExp = (s: string) => s.replace(/[.*+?^${}()|[\]\\]/g, '\\$&');

/**
 * The one redaction of a support bundle. Structured values lose every secret-named key's value
 * (at any depth), URL credentials and sealed envelopes; every secret value seen that way (and every
 * one registered with `addSecret`, e.g. opened sealed secrets and secret environment values) is then
 * scrubbed from free text, such as log lines, with its base64 and URL-encoded forms. Counts what it
 * redacted, per file, for the manifest.
 */
export class Redactor {
  private readonly known = new Set<string>();
  private pattern: RegExp | null = null;
  /** Redactions since the last `take()`. */
  private counted = 0;

  constructor(private readonly openSealed?: (sealed: string) => string | undefined) {}

  /** A value to scrub wherever it appears (with its base64 and URL-encoded forms). */
  addSecret(value: unknown): void {
    if (typeof value !== 'string') return;
    const v = value.trim();
    if (v.length < MIN_SECRET_LENGTH || v === BUNDLE_REDACTED) return;
    const forms = [
      v,
      Buffer.from(v).toString('base64'),
      Buffer.from(v).toString('base64').replace(/=+$/, ''),
      Buffer.from(v).toString('base64url'),
      encodeURIComponent(v),
      encodeURI(v),
      JSON.stringify(v).slice(1, -1),
    ];
    for (const f of forms)
      if (f.length >= MIN_SECRET_LENGTH && !this.known.has(f)) {
        this.known.add(f);
        this.pattern = null;
      }
  }

  /** How many values were redacted since the last call (and starts counting again). */
  take(): number {
    const n = this.counted;
    this.counted = 0;
    return n;
  }

  /** A deep copy of `value` without secrets. Learns the secrets it removes. */
  value(value: unknown, depth = 0): unknown {
    if (typeof value === 'string') return this.structuredText(value);
    if (value === null || typeof value !== 'object') return value;
    if (depth > 32) {
      this.counted += 1;
      return BUNDLE_REDACTED;
    }
    if (value instanceof Date) return value.toISOString();
    if (Buffer.isBuffer(value)) {
      this.counted += 1;
      return BUNDLE_REDACTED;
    }
    if (Array.isArray(value)) return value.map((v) => this.value(v, depth + 1));
    if (value instanceof Map) return this.value(Object.fromEntries(value), depth);
    if (value instanceof Set) return this.value([...value], depth);
    const record = value as Record<string, unknown>;
    // A header or secret given as `{name, value}` (webhook custom headers): the name says whether the value is secret.
    const namedSecret = typeof record.name === 'string' && 'value' in record && isSecretKey(record.name);
    const out: Record<string, unknown> = {};
    for (const [k, v] of Object.entries(record)) {
      if (namedSecret && k === 'value' && v !== null && v !== undefined && v !== '') {
        this.learn(v);
        this.counted += 1;
        out[k] = BUNDLE_REDACTED;
        continue;
      }
      if (isSecretKey(k) && v !== null && v !== undefined && v !== '' && v !== false) {
        this.learn(v);
        this.counted += 1;
        out[k] = BUNDLE_REDACTED;
      } else out[k] = this.value(v, depth + 1);
    }
    return out;
  }

  /** Free text (a log line, a report): URL credentials, sealed envelopes, Authorization values and every known secret. */
  text(text: string): string {
    let out = this.structuredText(text);
    // The logger's own rules (secret query parameters, Authorization schemes) catch what it missed.
    const relogged = redactLogText(out);
    if (relogged !== out) {
      this.counted += 1;
      out = relogged;
    }
    return out;
  }

  private structuredText(text: string): string {
    let out = text.replace(URL_CREDENTIALS, (_m, scheme: string, user: string, password?: string) => {
      this.counted += 1;
      if (password) {
        this.addSecret(decodeURIComponentSafe(password.slice(1)));
        this.addSecret(password.slice(1));
        return `${scheme}${user}:${BUNDLE_REDACTED}@`;
      }
      this.addSecret(user);
      return `${scheme}${BUNDLE_REDACTED}@`;
    });
    out = out.replace(SEALED, (sealed) => {
      this.counted += 1;
      this.addSecret(this.openSealed?.(sealed));
      return BUNDLE_REDACTED;
    });
    const pattern = this.knownPattern();
    if (pattern)
      out = out.replace(pattern, () => {
        this.counted += 1;
        return BUNDLE_REDACTED;
      });
    return out;
  }

  private learn(v: unknown): void {
    if (typeof v === 'string') {
      if (SEALED.test(v)) {
        SEALED.lastIndex = 0;
        for (const m of v.match(SEALED) ?? []) this.addSecret(this.openSealed?.(m));
      } else this.addSecret(v);
      SEALED.lastIndex = 0;
    } else if (Array.isArray(v)) for (const x of v) this.learn(x);
    else if (v && typeof v === 'object') for (const x of Object.values(v)) this.learn(x);
  }

  private knownPattern(): RegExp | null {
    if (this.known.size === 0) return null;
    this.pattern ??= new RegExp(
      [...this.known]
        .sort((a, b) => b.length - a.length)
        .map(escapeRegExp)
        .join('|'),
      'g',
    );
    return this.pattern;
  }
}

function decodeURIComponentSafe(s: string): string {
  try {
    return decodeURIComponent(s);
  } catch {
    return s;
  }
}

/** Environment variables whose values are secrets (their values are scrubbed from every file). */
export function secretEnvironmentValues(env: NodeJS.ProcessEnv = process.env): string[] {
  return Object.entries(env)
    .filter(([name, v]) => v && (isSecretKey(name) || /(_KEY|_PASS|_PWD|_AUTH)$|^AWS_/i.test(name)))
    .map(([, v]) => v as string);
}
