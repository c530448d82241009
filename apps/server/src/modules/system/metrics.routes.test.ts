import type { AddressInfo } from 'node:net';
import parsePrometheusTextFormat from 'parse-prometheus-text-format';

type MetricFamily = parsePrometheusTextFormat.MetricFamily;

import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import {
  basicAuth,
  createTestApp,
  TEST_ADMIN_PASSWORD,
  type TestApp,
  testEngine,
} from '../../testing/index.ts';

const ADMIN = basicAuth('admin', TEST_ADMIN_PASSWORD);
const PW = 'Prom-pa55word!';

interface Scrape {
  families: MetricFamily[];
  text: string;
}

/**
 * The sum of the samples named `name` whose labels include `labels` (a histogram's count: `name_count`).
 * Read from the lines: the parser validates the text and its families, but merges a labelled
 * histogram's series into one.
 */
function sample(scrape: Scrape, name: string, labels: Record<string, string> = {}): number {
  let sum = 0;
  for (const line of scrape.text.split('\n')) {
    const m = /^([a-zA-Z_:][a-zA-Z0-9_:]*)(?:\{(.*)\})? (\S+)$/.exec(line);
    if (!m || m[1] !== name) continue;
    const have = Object.fromEntries(
      [...(m[2] ?? '').matchAll(/(\w+)="((?:[^"\\]|\\.)*)"/g)].map((l) => [l[1], l[2]]),
    );
    if (Object.entries(labels).every(([k, v]) => have[k] === v)) sum += Number(m[3]);
  }
  return sum;
}

describe(`issue 15 Metrics: GET /api/v1/metrics (${testEngine})`, () => {
  let t: TestApp;
  let base: string;
  /** The app's clock runs ahead by this much: per-repository counts are read at most once a minute. */
  let ahead = 0;
  beforeAll(async () => {
    t = await createTestApp({}, { now: () => Date.now() + ahead });
    await t.app.listen({ port: 0, host: '127.0.0.1' });
    base = `http://127.0.0.1:${(t.app.server.address() as AddressInfo).port}`;
    await t.app.inject({
      method: 'PUT',
      url: '/api/security/users/prometheus',
      headers: { authorization: ADMIN },
      payload: { password: PW },
    });
  });
  afterAll(async () => {
    await t?.close();
  });

  const scrape = async (authorization = ADMIN) => {
    const res = await fetch(`${base}/api/v1/metrics`, { headers: { authorization } });
    expect(res.status).toBe(200);
    expect(res.headers.get('content-type')).toMatch(/^text\/plain; version=0\.0\.4/);
    const text = await res.text();
    return { families: parsePrometheusTextFormat(text), text };
  };

  it('issue 15 Metrics: the text parses with a Prometheus parser, and request, byte, upload, download, blob store and per-repository series move with traffic', async () => {
    const before = await scrape();
    for (const name of [
      'granary_http_requests_total',
      'granary_http_request_duration_seconds',
      'granary_events_backlog',
      'granary_job_queue_jobs',
      'granary_database_probe_seconds',
      'process_resident_memory_bytes',
      'nodejs_heap_size_used_bytes',
      'nodejs_eventloop_lag_seconds',
    ])
      expect(before.families.map((f) => f.name)).toContain(name);

    const body = Buffer.alloc(256 * 1024, 7);
    const put = await fetch(`${base}/repository/generic-local/metrics/file.bin`, {
      method: 'PUT',
      headers: { authorization: ADMIN, 'content-type': 'application/octet-stream' },
      body,
    });
    expect(put.status).toBe(201);
    for (let i = 0; i < 3; i++) {
      const get = await fetch(`${base}/repository/generic-local/metrics/file.bin`, {
        headers: { authorization: ADMIN },
      });
      expect((await get.arrayBuffer()).byteLength).toBe(body.length);
    }
    ahead += 61_000;
    const after = await scrape();

    const generic = { repo_type: 'generic' };
    const gets = (f: Scrape) =>
      sample(f, 'granary_http_requests_total', { ...generic, method: 'GET', status: '200' });
    expect(gets(after) - gets(before)).toBe(3);
    expect(sample(after, 'granary_http_received_bytes_total', generic)).toBeGreaterThanOrEqual(body.length);
    expect(sample(after, 'granary_http_sent_bytes_total', generic)).toBeGreaterThanOrEqual(3 * body.length);
    expect(sample(after, 'granary_upload_duration_seconds_count', generic)).toBe(1);
    expect(sample(after, 'granary_download_duration_seconds_count', generic)).toBe(3);
    const puts = (f: Scrape) =>
      sample(f, 'granary_blobstore_operation_duration_seconds_count', { operation: 'put', outcome: 'ok' });
    expect(puts(after)).toBeGreaterThan(puts(before));
    expect(sample(after, 'granary_repository_artifacts', { repo_key: 'generic-local' })).toBe(1);
    expect(sample(after, 'granary_repository_stored_bytes', { repo_key: 'generic-local' })).toBe(body.length);
    expect(sample(after, 'granary_database_up')).toBe(1);
    // Route templates, never raw URLs: label values stay bounded however many paths are asked for.
    expect(after.text).toContain('route="/repository/:key/*"');
    expect(after.text).not.toContain('file.bin');
  });

  it('issue 15 Metrics: admin or a metrics token only — anonymous 401, a user 403, a user token with system:metrics:r reads them and nothing admin', async () => {
    expect((await fetch(`${base}/api/v1/metrics`)).status).toBe(401);
    expect(
      (await fetch(`${base}/api/v1/metrics`, { headers: { authorization: basicAuth('prometheus', PW) } }))
        .status,
    ).toBe(403);

    // A non-admin cannot mint the metrics scope for themselves.
    const refused = await t.app.inject({
      method: 'POST',
      url: '/api/security/tokens',
      headers: { authorization: basicAuth('prometheus', PW) },
      payload: { scope: 'applied-permissions/user system:metrics:r' },
    });
    expect(refused.statusCode).toBe(403);

    const minted = await t.app.inject({
      method: 'POST',
      url: '/api/security/tokens',
      headers: { authorization: ADMIN },
      payload: { username: 'prometheus', scope: 'applied-permissions/user system:metrics:r' },
    });
    expect(minted.statusCode).toBe(200);
    expect(minted.json().scope).toBe('applied-permissions/user system:metrics:r');
    const bearer = `Bearer ${minted.json().access_token}`;
    expect((await scrape(bearer)).families.length).toBeGreaterThan(10);
    const users = await fetch(`${base}/api/security/users`, { headers: { authorization: bearer } });
    expect(users.status).toBe(403);
  });
});
