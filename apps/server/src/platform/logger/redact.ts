/** Keys whose values are secrets wherever they appear in a log object. */
const SECRET_KEY =
  /pass(word|wd|phrase)?|secret|token|authorization|cookie|credential|api[-_]?key|private[-_]?key|otp/i;
/** userinfo in URLs: scheme://user:secret@host */
const URL_CREDENTIALS = /([a-z][a-z0-9+.-]*:\/\/[^\s:/@]+:)[^\s@/]+@/gi;
/** query parameters that carry secrets: ?token=…&password=…, an OAuth authorization ?code=… (issue 20) */
const SECRET_QUERY =
  /([?&;](?:[^=&;\s]*(?:pass(?:word)?|secret|token|key|auth|signature|sig|session|code)[^=&;\s]*)=)[^&;\s#]*/gi;
/** Path segments that carry secrets: a CLI registration session id (`/cli-registration[s]/{id}`). */
const SECRET_PATH = /(\/cli-registrations?\/)[A-Za-z0-9_-]{16,}/g;
/** Authorization header values that ended up in text. */
const AUTH_SCHEME = /\b(Basic|Bearer|Token)\s+[A-Za-z0-9+/=._~-]{8,}/g;

export const REDACTED = '[redacted]';

/** Whether any of the patterns above could match: most log text (a path, a message) has none of these. */
const MAYBE_SECRET = /[?&;]|:\/\/|\/cli-registration|Basic|Bearer|Token/;

export function redactText(text: string): string {
  if (!MAYBE_SECRET.test(text)) return text;
  return text
    .replace(URL_CREDENTIALS, `$1${REDACTED}@`)
    .replace(SECRET_QUERY, `$1${REDACTED}`)
    .replace(SECRET_PATH, `$1${REDACTED}`)
    .replace(AUTH_SCHEME, `$1 ${REDACTED}`);
}

/** Deep copy of `value` with secret-named keys replaced and secrets in strings masked. */
export function redactValue(value: unknown, depth = 0): unknown {
  if (typeof value === 'string') return redactText(value);
  if (value === null || typeof value !== 'object' || depth > 8) return value;
  if (Array.isArray(value)) return value.map((v) => redactValue(v, depth + 1));
  if (value instanceof Error) {
    // Stays an Error so the logger's error serializer and default message still apply.
    const out = new Error(redactText(value.message)) as Error & Record<string, unknown>;
    out.name = value.name;
    out.stack = value.stack ? redactText(value.stack) : undefined;
    for (const [k, v] of Object.entries(value))
      out[k] = SECRET_KEY.test(k) ? REDACTED : redactValue(v, depth + 1);
    return out;
  }
  const out: Record<string, unknown> = {};
  for (const [k, v] of Object.entries(value as Record<string, unknown>)) {
    out[k] = SECRET_KEY.test(k) && v != null && v !== '' ? REDACTED : redactValue(v, depth + 1);
  }
  return out;
}
