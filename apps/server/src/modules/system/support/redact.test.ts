import { describe, expect, it } from 'vitest';
import { createSecrets } from '../../../platform/secrets/index.ts';
import { BUNDLE_REDACTED, Redactor, secretEnvironmentValues } from './redact.ts';

describe('issue 15 support bundles: redaction', () => {
  it('redacts secret-named keys at any depth and keeps names and ordinary settings', () => {
    const r = new Redactor();
    const out = r.value({
      key: 'libs-remote',
      projectKey: 'dflt',
      url: 'https://repo.example.com/npm',
      password: 'hunter2-remote',
      nested: [{ handlers: { secret: 's3cret-value', apiKey: 'AKIA-123456', privateKey: 'PEM-abcdef' } }],
      masterKey: 'bWFzdGVyLWtleS1iYXNlNjQ=',
      Authorization: 'Bearer abcdefghijklmnop',
      cookie: 'sid=123456789',
      credentials: { user: 'u', pass: 'p@ssw0rd!' },
      port: 8080,
    }) as Record<string, unknown>;
    expect(out.key).toBe('libs-remote');
    expect(out.projectKey).toBe('dflt');
    expect(out.url).toBe('https://repo.example.com/npm');
    expect(out.port).toBe(8080);
    expect(out.password).toBe(BUNDLE_REDACTED);
    expect(out.masterKey).toBe(BUNDLE_REDACTED);
    expect(out.Authorization).toBe(BUNDLE_REDACTED);
    expect(out.cookie).toBe(BUNDLE_REDACTED);
    expect(out.credentials).toBe(BUNDLE_REDACTED);
    expect(JSON.stringify(out)).not.toMatch(/hunter2|s3cret|AKIA|PEM-|p@ssw0rd/);
    expect(r.take()).toBe(8);
  });

  it('redacts URL credentials and sealed envelopes, and learns their secrets for free text', () => {
    const secrets = createSecrets(Buffer.alloc(32, 7));
    const sealed = secrets.sealSecret('webhook-signing-secret');
    const r = new Redactor((s) => secrets.openSecret(s));
    const out = r.value({
      databaseUrl: 'postgres://granary:db-pa55word@db.example:5432/granary',
      stored: sealed,
    }) as Record<string, string>;
    expect(out.databaseUrl).toBe(`postgres://granary:${BUNDLE_REDACTED}@db.example:5432/granary`);
    expect(out.stored).toBe(BUNDLE_REDACTED);
    expect(r.take()).toBe(2);
    const line = 'connecting with db-pa55word; signed with webhook-signing-secret';
    expect(r.text(line)).toBe(`connecting with ${BUNDLE_REDACTED}; signed with ${BUNDLE_REDACTED}`);
    expect(r.take()).toBe(2);
  });

  it('scrubs every known secret from free text, also base64 and URL-encoded', () => {
    const r = new Redactor();
    const secret = 'Pl@nted secret/value+1';
    r.value({ token: secret });
    r.take();
    const b64 = Buffer.from(secret).toString('base64');
    const text = `a ${secret} b ${b64} c ${encodeURIComponent(secret)} d ${JSON.stringify({ x: secret })}`;
    const out = r.text(text);
    expect(out).not.toContain(secret);
    expect(out).not.toContain(b64);
    expect(out).not.toContain(encodeURIComponent(secret));
    expect(r.take()).toBeGreaterThanOrEqual(4);
  });

  it('also applies the log rules (Authorization headers, secret query parameters)', () => {
    const r = new Redactor();
    const out = r.text('GET /x?access_token=abcdef123456 Authorization: Basic dXNlcjpwYXNzd29yZA==');
    expect(out).not.toContain('abcdef123456');
    expect(out).not.toContain('dXNlcjpwYXNzd29yZA==');
  });

  it('treats secret-named environment variables as secrets', () => {
    const values = secretEnvironmentValues({
      AWS_SECRET_ACCESS_KEY: 'aws-secret-1234',
      GITHUB_TOKEN: 'ghp_abcdef',
      HOME: '/root',
      PATH: '/usr/bin',
    });
    expect(values.sort()).toEqual(['aws-secret-1234', 'ghp_abcdef']);
  });
});
