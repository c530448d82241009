import { describe, expect, it } from 'vitest';
import { MAX_ATTEMPTS, parseRetryAfter, RETRY_DELAYS_MS, retryDelay } from './delivery.ts';
import { checkTemplate, renderTemplate } from './template.ts';

describe('webhook delivery rules (issue 14)', () => {
  it('issue 14: at least 10 attempts over at least 72 hours, exponential back-off with jitter', () => {
    expect(MAX_ATTEMPTS).toBeGreaterThanOrEqual(10);
    const least = RETRY_DELAYS_MS.reduce((a, b) => a + b, 0);
    expect(least).toBeGreaterThanOrEqual(72 * 3600_000);
    for (let i = 1; i < RETRY_DELAYS_MS.length; i++)
      expect(RETRY_DELAYS_MS[i]!).toBeGreaterThanOrEqual(RETRY_DELAYS_MS[i - 1]!);
    const samples = new Set(Array.from({ length: 20 }, () => retryDelay(3)));
    expect(samples.size).toBeGreaterThan(1);
    for (const s of samples) {
      expect(s).toBeGreaterThanOrEqual(RETRY_DELAYS_MS[2]!);
      expect(s).toBeLessThanOrEqual(RETRY_DELAYS_MS[2]! * 1.2);
    }
  });

  it('issue 14: Retry-After is honoured as seconds or an HTTP date (at most a day)', () => {
    const now = Date.parse('2030-01-01T00:00:00Z');
    expect(parseRetryAfter('1', now)).toBe(1000);
    expect(parseRetryAfter('Tue, 01 Jan 2030 00:00:30 GMT', now)).toBe(30_000);
    expect(parseRetryAfter('999999', now)).toBe(24 * 3600_000);
    expect(parseRetryAfter('soon', now)).toBeUndefined();
    expect(parseRetryAfter(null, now)).toBeUndefined();
  });

  it('issue 14 §custom-webhook: templates substitute fields only, never run code', () => {
    const scope = {
      event_type: 'deployed',
      data: { path: 'a/b.txt', size: 3, list: ['x'] },
      secrets: { T: 's' },
    };
    expect(
      renderTemplate(
        '{{ .event_type }}:{{.data.path}}:{{ .data.size }}:{{ .data.list }}:{{ .secrets.T }}:{{ .data.none }}',
        scope,
      ),
    ).toBe('deployed:a/b.txt:3:["x"]:s:');
    expect(renderTemplate('{{ .data.constructor }}{{ .data.__proto__ }}', scope)).toBe('');
    expect(checkTemplate('{{ .data.path }} {{ .secrets.T }}', 'artifact', ['T'])).toBeNull();
    expect(checkTemplate('{{ .data.user_name }}', 'artifact', [])).toContain('no data field user_name');
    expect(checkTemplate('{{ .data.user_name }}', 'user', [])).toBeNull();
    expect(checkTemplate('{{ call .x }}', 'artifact', [])).toContain('only fields');
    expect(checkTemplate('a }} b', 'artifact', [])).toContain('unexpected "}}"');
  });
});
