import { readdir, readFile } from 'node:fs/promises';
import path from 'node:path';
import { WEBHOOK_MESSAGES } from '@granary/contracts';
import { sql } from 'drizzle-orm';
import { Webhook } from 'standardwebhooks';
import { afterAll, beforeAll, describe, expect, it, vi } from 'vitest';
import { queryRows } from '../../platform/db/index.ts';
import {
  basicAuth,
  createTestApp,
  TEST_ADMIN_PASSWORD,
  type TestApp,
  testEngine,
} from '../../testing/index.ts';
import { matchEvents } from './delivery.ts';
import { TestReceiver } from './test-receiver.ts';

const ADMIN = basicAuth('admin', TEST_ADMIN_PASSWORD);
const USER = basicAuth('plain', 'Plain-pa55word!');
const SECRET = 'Sup3r-Secret-Value-4711';
const P = '/event/api/v1';

const criteria = (include: string[]) => ({
  anyLocal: true,
  anyRemote: false,
  anyFederated: false,
  repoKeys: [],
  includePatterns: include,
  excludePatterns: [],
});

function subscription(
  key: string,
  url: string,
  opts: { include?: string[]; types?: string[]; secret?: string } = {},
) {
  return {
    key,
    description: `test ${key}`,
    enabled: true,
    event_filter: {
      domain: 'artifact',
      event_types: opts.types ?? ['deployed', 'deleted', 'moved', 'copied'],
      criteria: criteria(opts.include ?? [`${key}/**`]),
    },
    handlers: [
      {
        handler_type: 'webhook',
        url,
        secret: opts.secret ?? SECRET,
        use_secret_for_signing: false,
        custom_http_headers: [{ name: 'X-Team', value: 'ci' }],
      },
    ],
  };
}

describe(`webhooks: subscriptions, signed deliveries, retries and the delivery log (${testEngine})`, () => {
  let t: TestApp;
  let receiver: TestReceiver;
  beforeAll(async () => {
    t = await createTestApp({ outboundAllowlist: '127.0.0.1' });
    receiver = await new TestReceiver().start();
    await t.app.inject({
      method: 'PUT',
      url: '/api/security/users/plain',
      headers: { authorization: ADMIN },
      payload: { password: 'Plain-pa55word!' },
    });
  });
  afterAll(async () => {
    await receiver?.stop();
    await t?.close();
  });

  const api = (method: 'GET' | 'POST' | 'PUT' | 'DELETE', url: string, payload?: unknown, auth = ADMIN) =>
    t.app.inject({
      method,
      url,
      headers: { authorization: auth },
      ...(payload === undefined ? {} : { payload: payload as object }),
    });
  const deploy = (p: string, body = `content of ${p}`) =>
    t.app.inject({
      method: 'PUT',
      url: `/repository/generic-local/${p}`,
      headers: { authorization: ADMIN, 'content-type': 'application/octet-stream' },
      payload: body,
    });
  const message = (res: { json(): unknown }) =>
    (res.json() as { errors: { message: string }[] }).errors[0]!.message;

  it('issue 14 / spec 001 §7: subscriptions CRUD at /event/api/v1 and under the console prefix; PUT ignores a key in the body', async () => {
    const created = await api('POST', `${P}/subscriptions`, subscription('crud-hook', receiver.url));
    expect(created.statusCode).toBe(201);
    expect(created.json()).toMatchObject({
      key: 'crud-hook',
      enabled: true,
      event_filter: { domain: 'artifact' },
    });

    const viaConsole = await api('GET', `/ui/api/v1/event/api/v1/subscriptions/crud-hook`);
    expect(viaConsole.statusCode).toBe(200);
    expect(viaConsole.json().description).toBe('test crud-hook');
    expect((await api('GET', `${P}/subscriptions`)).json().map((s: { key: string }) => s.key)).toContain(
      'crud-hook',
    );

    const changed = { ...subscription('other-key', receiver.url), description: 'changed', enabled: false };
    const put = await api('PUT', `${P}/subscriptions/crud-hook`, changed);
    expect(put.statusCode).toBe(200);
    expect(put.json()).toMatchObject({ key: 'crud-hook', description: 'changed', enabled: false });
    expect((await api('GET', `${P}/subscriptions/other-key`)).statusCode).toBe(404);

    const domains = await api('GET', `${P}/domains`);
    expect(domains.json().map((d: { domain: string }) => d.domain)).toHaveLength(13);
    expect(domains.json().find((d: { domain: string }) => d.domain === 'build')).toMatchObject({
      available: true,
    });

    expect((await api('DELETE', `${P}/subscriptions/crud-hook`)).statusCode).toBe(204);
    expect((await api('GET', `${P}/subscriptions/crud-hook`)).statusCode).toBe(404);
    const audit = await queryRows<{ action: string; actor: string }>(
      t.app.granary.database.db,
      sql`select action, actor from audit_events where target = 'crud-hook' order by id`,
    );
    expect(audit).toEqual([
      { action: 'webhook.created', actor: 'admin' },
      { action: 'webhook.updated', actor: 'admin' },
      { action: 'webhook.deleted', actor: 'admin' },
    ]);
  });

  it('issue 14: every webhook route is for administrators only (401 anonymous, 403 a plain user)', async () => {
    const routes: ['GET' | 'POST' | 'PUT' | 'DELETE', string][] = [
      ['GET', `${P}/subscriptions`],
      ['POST', `${P}/subscriptions`],
      ['GET', `${P}/subscriptions/x1`],
      ['PUT', `${P}/subscriptions/x1`],
      ['DELETE', `${P}/subscriptions/x1`],
      ['POST', `${P}/subscriptions/test`],
      ['GET', `${P}/domains`],
      ['GET', `${P}/subscriptions/x1/deliveries`],
      ['POST', `${P}/subscriptions/x1/deliveries/1/redeliver`],
      ['GET', `/ui/api/v1/event/api/v1/subscriptions`],
      ['GET', '/ui/api/v1/ui/proxies'],
      ['POST', '/ui/api/v1/ui/permissiontargets/buildPatterns'],
      ['POST', '/ui/api/v1/ui/permissiontargets/releaseBundles'],
      ['GET', '/ui/api/v1/ui/admin/repositories/local/info'],
    ];
    for (const [method, url] of routes) {
      const anon = await t.app.inject({
        method,
        url,
        payload: method === 'GET' || method === 'DELETE' ? undefined : {},
      });
      expect(anon.statusCode, `${method} ${url} anonymous`).toBe(401);
      const plain = await api(method, url, method === 'GET' || method === 'DELETE' ? undefined : {}, USER);
      expect(plain.statusCode, `${method} ${url} as a plain user`).toBe(403);
    }
  });

  it('spec 001 §5: validation answers 400 with the spec’s messages; a duplicate name 409 "This name already exist"', async () => {
    const base = subscription('valid-hook', receiver.url);
    const cases: [unknown, string][] = [
      [{ ...base, key: '' }, WEBHOOK_MESSAGES.mandatory],
      [{ ...base, key: '1abc' }, WEBHOOK_MESSAGES.name],
      [{ ...base, key: 'a b' }, WEBHOOK_MESSAGES.name],
      [{ ...base, key: 'a' }, WEBHOOK_MESSAGES.name],
      [{ ...base, handlers: [{ ...base.handlers[0], url: '' }] }, WEBHOOK_MESSAGES.mandatory],
      [{ ...base, handlers: [{ ...base.handlers[0], url: 'not a url' }] }, WEBHOOK_MESSAGES.url],
      [{ ...base, handlers: [{ ...base.handlers[0], url: 'gopher://example.com/' }] }, WEBHOOK_MESSAGES.url],
      [
        { ...base, handlers: [{ ...base.handlers[0], custom_http_headers: [{ name: 'X-A', value: '' }] }] },
        WEBHOOK_MESSAGES.header,
      ],
      [
        {
          ...base,
          handlers: [
            { handler_type: 'custom-webhook', url: receiver.url, secrets: [{ name: '', value: 'x' }] },
          ],
        },
        WEBHOOK_MESSAGES.secret,
      ],
      [
        {
          ...base,
          handlers: [
            { handler_type: 'custom-webhook', url: receiver.url, secrets: [{ name: '9lives', value: 'x' }] },
          ],
        },
        WEBHOOK_MESSAGES.secretName,
      ],
      [{ ...base, event_filter: { ...base.event_filter, event_types: [] } }, WEBHOOK_MESSAGES.mandatory],
    ];
    for (const [body, expected] of cases) {
      const res = await api('POST', `${P}/subscriptions`, body);
      expect(res.statusCode, JSON.stringify(body)).toBe(400);
      expect(message(res).startsWith(expected), `${message(res)} should start with ${expected}`).toBe(true);
    }
    expect((await api('POST', `${P}/subscriptions`, base)).statusCode).toBe(201);
    const dup = await api('POST', `${P}/subscriptions`, { ...base, key: 'VALID-hook' });
    expect(dup.statusCode).toBe(409);
    expect(message(dup)).toBe(WEBHOOK_MESSAGES.duplicate);
    await api('DELETE', `${P}/subscriptions/valid-hook`);
  });

  it('spec 001 §5 "Enter a valid URL … private ranges excluded": 10.0.0.1 and 169.254.169.254 refused; 127.0.0.1 taken because GRANARY_OUTBOUND_ALLOWLIST names it; ftp accepted', async () => {
    for (const url of [
      'http://10.0.0.1/hook',
      'http://169.254.169.254/latest/meta-data',
      'http://[::1]:9/x',
    ]) {
      const res = await api('POST', `${P}/subscriptions`, subscription('private-hook', url));
      expect(res.statusCode, url).toBe(400);
      expect(message(res)).toMatch(/^Enter a valid URL: .*GRANARY_OUTBOUND_ALLOWLIST/);
    }
    expect(
      message(
        await api('POST', `${P}/subscriptions`, subscription('private-hook', 'http://169.254.169.254/')),
      ),
    ).toContain('metadata');
    const ftp = await api(
      'POST',
      `${P}/subscriptions`,
      subscription('ftp-hook', 'ftp://files.example.com/in'),
    );
    expect(ftp.statusCode).toBe(201);
    await api('DELETE', `${P}/subscriptions/ftp-hook`);
    expect(
      (await api('POST', `${P}/subscriptions`, subscription('loop-hook', receiver.url))).statusCode,
    ).toBe(201);
    await api('DELETE', `${P}/subscriptions/loop-hook`);
  });

  it('issue 14: secrets are write-only (answers carry ""), sealed at rest, kept by a PUT with "", and never in a log file', async () => {
    const handler = {
      handler_type: 'custom-webhook',
      url: receiver.url,
      secret: SECRET,
      method: 'POST',
      payload: '{"token":"{{ .secrets.TOKEN }}"}',
      secrets: [{ name: 'TOKEN', value: `${SECRET}-named` }],
    };
    const body = { ...subscription('secret-hook', receiver.url), handlers: [handler] };
    const created = await api('POST', `${P}/subscriptions`, body);
    expect(created.statusCode).toBe(201);
    expect(created.json().handlers[0]).toMatchObject({ secret: '', secrets: [{ name: 'TOKEN', value: '' }] });
    // PUT with "" keeps both stored values.
    const kept = await api('PUT', `${P}/subscriptions/secret-hook`, {
      ...body,
      handlers: [{ ...handler, secret: '', secrets: [{ name: 'TOKEN', value: '' }] }],
    });
    expect(kept.statusCode).toBe(200);
    for (const res of [
      created,
      kept,
      await api('GET', `${P}/subscriptions`),
      await api('GET', `${P}/subscriptions/secret-hook`),
    ])
      expect(res.body).not.toContain(SECRET);
    const [row] = await queryRows<{ handlers: unknown }>(
      t.app.granary.database.db,
      sql`select handlers from webhook_subscriptions where key = 'secret-hook'`,
    );
    expect(JSON.stringify(row!.handlers)).not.toContain(SECRET);
    expect(JSON.stringify(row!.handlers)).toMatch(/"secret":"gs1\./);

    // A test send with the stored secrets: the receiver gets them, the log masks them.
    const test = await api('POST', `${P}/subscriptions/test`, {
      ...body,
      handlers: [{ ...handler, secret: '', secrets: [{ name: 'TOKEN', value: '' }] }],
    });
    expect(test.statusCode).toBe(200);
    expect(test.json().message).toBe(WEBHOOK_MESSAGES.testSuccess);
    expect(receiver.arrivals.at(-1)!.body).toBe(`{"token":"${SECRET}-named"}`);
    const log = await api('GET', `${P}/subscriptions/secret-hook/deliveries`);
    expect(log.json().attempts[0]).toMatchObject({ test: true, response: { status: 200 } });
    expect(log.body).not.toContain(SECRET);

    // A refused save that carries a secret: nothing of it in any log either.
    await api('POST', `${P}/subscriptions`, {
      ...subscription('x-hook', 'http://10.0.0.1/'),
      handlers: [{ handler_type: 'webhook', url: 'http://10.0.0.1/', secret: SECRET }],
    });
    await new Promise((r) => setTimeout(r, 300));
    const dir = path.join(t.home, 'logs');
    const files = await readdir(dir);
    expect(files.length).toBeGreaterThan(0);
    for (const file of files)
      expect(await readFile(path.join(dir, file), 'utf8'), file).not.toContain(SECRET);
    await api('DELETE', `${P}/subscriptions/secret-hook`);
  });

  it('issue 14 acceptance: a generic PUT, a copy, a move and a delete each deliver exactly once, signed (verified by the standardwebhooks package) and naming the artifact', async () => {
    const key = 'flow-hook';
    expect(
      (await api('POST', `${P}/subscriptions`, subscription(key, receiver.url, { include: ['flow/**'] })))
        .statusCode,
    ).toBe(201);
    const start = receiver.arrivals.length;
    const mine = () => receiver.events().filter((e) => receiver.arrivals.indexOf(e.arrival) >= start);

    expect((await deploy('flow/a/app-1.0.txt')).statusCode).toBe(201);
    await receiver.waitFor(() => mine().some((e) => e.body.event_type === 'deployed'), 15_000, 'the deploy');
    expect(
      (await api('POST', '/api/copy/generic-local/flow/a/app-1.0.txt?to=/generic-local/flow/b/app-1.0.txt'))
        .statusCode,
    ).toBe(200);
    await receiver.waitFor(() => mine().some((e) => e.body.event_type === 'copied'), 15_000, 'the copy');
    expect(
      (await api('POST', '/api/move/generic-local/flow/b/app-1.0.txt?to=/generic-local/flow/c/app-1.0.txt'))
        .statusCode,
    ).toBe(200);
    await receiver.waitFor(() => mine().some((e) => e.body.event_type === 'moved'), 15_000, 'the move');
    expect((await api('DELETE', '/repository/generic-local/flow/c/app-1.0.txt')).statusCode).toBe(204);
    await receiver.waitFor(() => mine().some((e) => e.body.event_type === 'deleted'), 15_000, 'the delete');
    await new Promise((r) => setTimeout(r, 2500)); // nothing more comes

    const got = mine();
    expect(got.map((e) => e.body.event_type).sort()).toEqual(['copied', 'deleted', 'deployed', 'moved']);
    const verifier = new Webhook(SECRET, { format: 'raw' });
    for (const { arrival, body } of got) {
      expect(() => verifier.verify(arrival.body, arrival.headers)).not.toThrow();
      expect(arrival.headers['x-jfrog-event-auth']).toBe(SECRET);
      expect(arrival.headers['x-team']).toBe('ci');
      expect(body).toMatchObject({
        domain: 'artifact',
        subscription_key: key,
        id: arrival.headers['webhook-id'],
      });
      expect(typeof body.timestamp).toBe('string');
    }
    const data = (type: string) =>
      got.find((e) => e.body.event_type === type)!.body.data as Record<string, unknown>;
    expect(data('deployed')).toMatchObject({
      repo_key: 'generic-local',
      path: 'flow/a/app-1.0.txt',
      name: 'app-1.0.txt',
    });
    expect(data('deployed').sha256).toMatch(/^[0-9a-f]{64}$/);
    expect(data('copied')).toMatchObject({
      repo_key: 'generic-local',
      path: 'flow/b/app-1.0.txt',
      source_path: 'flow/a/app-1.0.txt',
    });
    expect(data('moved')).toMatchObject({
      repo_key: 'generic-local',
      path: 'flow/c/app-1.0.txt',
      source_path: 'flow/b/app-1.0.txt',
    });
    expect(data('deleted')).toMatchObject({ repo_key: 'generic-local', path: 'flow/c/app-1.0.txt' });

    // A path outside the include pattern is not delivered.
    await deploy('elsewhere/x.txt');
    await new Promise((r) => setTimeout(r, 2500));
    expect(mine()).toHaveLength(4);
    await api('DELETE', `${P}/subscriptions/${key}`);
  });

  it('issue 14 acceptance: a property set delivers artifact_property.added once, naming the artifact and the property', async () => {
    const key = 'prop-hook';
    const body = subscription(key, receiver.url, { include: ['props/**'] });
    body.event_filter = {
      ...body.event_filter,
      domain: 'artifact_property',
      event_types: ['added', 'deleted'],
    };
    expect((await api('POST', `${P}/subscriptions`, body)).statusCode).toBe(201);
    await deploy('props/lib.txt');
    const start = receiver.arrivals.length;
    expect(
      (await api('PUT', '/api/storage/generic-local/props/lib.txt?properties=qa=passed')).statusCode,
    ).toBe(204);
    await receiver.waitFor(
      () => receiver.events('artifact_property.added').length > 0,
      15_000,
      'the property event',
    );
    await new Promise((r) => setTimeout(r, 2000));
    const got = receiver
      .events('artifact_property.added')
      .filter((e) => receiver.arrivals.indexOf(e.arrival) >= start);
    expect(got).toHaveLength(1);
    expect(got[0]!.body.data).toMatchObject({
      repo_key: 'generic-local',
      path: 'props/lib.txt',
      property_key: 'qa',
    });
    await api('DELETE', `${P}/subscriptions/${key}`);
  });

  it('issue 14 acceptance: the receiver answers 500 three times (Retry-After: 1), then 200: the event arrives once, the log shows four attempts', async () => {
    const key = 'retry-hook';
    expect((await api('POST', `${P}/subscriptions`, subscription(key, receiver.url))).statusCode).toBe(201);
    const start = receiver.arrivals.length;
    receiver.answer(
      { status: 500, headers: { 'retry-after': '1' }, body: 'down' },
      { status: 500, headers: { 'retry-after': '1' }, body: 'down' },
      { status: 500, headers: { 'retry-after': '1' }, body: 'down' },
    );
    await deploy(`${key}/r.txt`);
    await receiver.waitFor(() => receiver.arrivals.length - start >= 4, 30_000, 'four attempts');
    await new Promise((r) => setTimeout(r, 2500));
    const got = receiver.arrivals.slice(start);
    expect(got).toHaveLength(4);
    expect(new Set(got.map((a) => a.headers['webhook-id'])).size).toBe(1); // the same message each time
    const log = (await api('GET', `${P}/subscriptions/${key}/deliveries`)).json();
    expect(log.total).toBe(4);
    expect(log.attempts.map((a: { attempt: number }) => a.attempt)).toEqual([4, 3, 2, 1]);
    expect(log.attempts.map((a: { response: { status: number } }) => a.response.status)).toEqual([
      200, 500, 500, 500,
    ]);
    expect(log.attempts[1].error).toBe('the receiver answered 500');
    expect(log.attempts[0].request.headers['x-jfrog-event-auth']).toBe('********');
    expect((await api('GET', `${P}/subscriptions/${key}`)).json().last_delivery).toMatchObject({
      status: 'delivered',
      response_status: 200,
    });

    // Redeliver: the same message (same webhook-id) is sent once more and logged as attempt 5.
    const redo = await api(
      'POST',
      `${P}/subscriptions/${key}/deliveries/${log.attempts[0].delivery_id}/redeliver`,
    );
    expect(redo.statusCode).toBe(202);
    await receiver.waitFor(() => receiver.arrivals.length - start >= 5, 15_000, 'the redelivery');
    expect(receiver.arrivals.at(-1)!.headers['webhook-id']).toBe(got[0]!.headers['webhook-id']);
    const after = (await api('GET', `${P}/subscriptions/${key}/deliveries?limit=2`)).json();
    expect(after).toMatchObject({ total: 5, limit: 2 });
    expect(after.attempts[0].attempt).toBe(5);
    expect((await api('POST', `${P}/subscriptions/${key}/deliveries/nope/redeliver`)).statusCode).toBe(404);
    await api('DELETE', `${P}/subscriptions/${key}`);
  });

  it('issue 14: an outbox batch handed to the matcher twice (at-least-once) queues each delivery once', async () => {
    const key = 'dedupe-hook';
    expect((await api('POST', `${P}/subscriptions`, subscription(key, receiver.url))).statusCode).toBe(201);
    const g = t.app.granary;
    const deps = {
      db: g.database.db,
      secrets: g.secrets,
      outbound: g.outbound,
      log: g.logging.server,
      source: 'granary',
      now: g.now,
    };
    const event = {
      id: 987_654_321,
      type: 'artifact.deployed',
      payload: {
        repo_key: 'generic-local',
        path: `${key}/twice.txt`,
        name: 'twice.txt',
        sha256: 'a'.repeat(64),
        size: 1,
      },
      createdAt: new Date(),
    };
    const start = receiver.arrivals.length;
    expect(await matchEvents(deps, [event])).toBe(1);
    expect(await matchEvents(deps, [event])).toBe(0);
    await receiver.waitFor(() => receiver.arrivals.length > start, 15_000, 'the delivery');
    await new Promise((r) => setTimeout(r, 2000));
    expect(receiver.arrivals.length - start).toBe(1);
    await api('DELETE', `${P}/subscriptions/${key}`);
  });

  it('issue 14: a receiver answering 410 Gone disables the subscription and says why', async () => {
    const key = 'gone-hook';
    expect((await api('POST', `${P}/subscriptions`, subscription(key, receiver.url))).statusCode).toBe(201);
    const start = receiver.arrivals.length;
    receiver.answer({ status: 410, body: 'gone' });
    await deploy(`${key}/g.txt`);
    await receiver.waitFor(() => receiver.arrivals.length > start, 15_000, 'the delivery');
    let sub: { enabled: boolean; disabled_reason: string | null } = { enabled: true, disabled_reason: null };
    for (let i = 0; i < 50 && sub.enabled; i++) {
      await new Promise((r) => setTimeout(r, 100));
      sub = (await api('GET', `${P}/subscriptions/${key}`)).json();
    }
    expect(sub.enabled).toBe(false);
    expect(sub.disabled_reason).toMatch(/410 Gone/);
    await deploy(`${key}/g2.txt`);
    await new Promise((r) => setTimeout(r, 2500));
    expect(receiver.arrivals.length - start).toBe(1);
    await api('DELETE', `${P}/subscriptions/${key}`);
  });

  it('issue 14: during a secret rotation both the new and the old secret sign (24 h grace); whsec_ secrets are used as the standard says', async () => {
    const key = 'rotate-hook';
    const oldSecret = `whsec_${Buffer.from('old-secret-bytes-0123456789').toString('base64')}`;
    expect(
      (await api('POST', `${P}/subscriptions`, subscription(key, receiver.url, { secret: oldSecret })))
        .statusCode,
    ).toBe(201);
    const newSecret = 'brand-new-secret-value';
    expect(
      (await api('PUT', `${P}/subscriptions/${key}`, subscription(key, receiver.url, { secret: newSecret })))
        .statusCode,
    ).toBe(200);
    const start = receiver.arrivals.length;
    await deploy(`${key}/s.txt`);
    await receiver.waitFor(() => receiver.arrivals.length > start, 15_000, 'the delivery');
    const arrival = receiver.arrivals[start]!;
    expect(arrival.headers['webhook-signature']!.split(' ')).toHaveLength(2);
    expect(() =>
      new Webhook(newSecret, { format: 'raw' }).verify(arrival.body, arrival.headers),
    ).not.toThrow();
    expect(() => new Webhook(oldSecret).verify(arrival.body, arrival.headers)).not.toThrow();
    expect(() => new Webhook('whsec_d3JvbmctYnl0ZXM=').verify(arrival.body, arrival.headers)).toThrow();
    await api('DELETE', `${P}/subscriptions/${key}`);
  });

  it('issue 14 §custom-webhook: templates fill event fields and secrets; an unknown field or bad syntax is refused when saving (400 naming it)', async () => {
    const key = 'custom-hook';
    const handler = {
      handler_type: 'custom-webhook',
      url: receiver.url,
      method: 'PUT',
      http_headers: [{ name: 'Authorization', value: 'Bearer {{ .secrets.API_TOKEN }}' }],
      secrets: [{ name: 'API_TOKEN', value: 'tok-123456' }],
      payload: '{"text":"{{ .event_type }} {{.data.repo_key}}/{{ .data.path }}"}',
    };
    const body = { ...subscription(key, receiver.url), handlers: [handler] };
    for (const [payload, named] of [
      ['{{ .data.nonsense }}', 'nonsense'],
      ['{{ .secrets.OTHER }}', 'OTHER'],
      ['{{ .data.path', 'not closed'],
      ['{{ printf "%s" .data.path }}', 'only fields'],
      ['{{ .bogus }}', 'bogus'],
    ]) {
      const res = await api('POST', `${P}/subscriptions`, { ...body, handlers: [{ ...handler, payload }] });
      expect(res.statusCode, payload).toBe(400);
      expect(message(res), payload).toContain(named);
    }
    expect((await api('POST', `${P}/subscriptions`, body)).statusCode).toBe(201);
    const start = receiver.arrivals.length;
    await deploy(`${key}/c.txt`);
    await receiver.waitFor(() => receiver.arrivals.length > start, 15_000, 'the delivery');
    const arrival = receiver.arrivals[start]!;
    expect(arrival.method).toBe('PUT');
    expect(arrival.body).toBe(`{"text":"deployed generic-local/${key}/c.txt"}`);
    expect(arrival.headers.authorization).toBe('Bearer tok-123456');
    // The attempt is recorded once the receiver has answered: on PostgreSQL the read can come first.
    const log = await vi.waitFor(async () => {
      const found = (await api('GET', `${P}/subscriptions/${key}/deliveries`)).json();
      expect(found.attempts.length).toBeGreaterThan(0);
      return found;
    });
    expect(log.attempts[0].request.headers.authorization).toBe('********');
    await api('DELETE', `${P}/subscriptions/${key}`);
  });

  it('spec 001 §8: the test endpoint answers 200 with the success message, 502 when the receiver fails or cannot be reached, 504 when it does not answer in time', async () => {
    const body = subscription('test-hook', receiver.url);
    receiver.answer({ status: 200 });
    const ok = await api('POST', `${P}/subscriptions/test`, body);
    expect(ok.statusCode).toBe(200);
    expect(ok.json().message).toBe(WEBHOOK_MESSAGES.testSuccess);
    const sent = receiver.arrivals.at(-1)!;
    expect(() => new Webhook(SECRET, { format: 'raw' }).verify(sent.body, sent.headers)).not.toThrow();
    expect(JSON.parse(sent.body)).toMatchObject({ domain: 'artifact', event_type: 'deployed' });

    receiver.answer({ status: 500, body: 'boom' });
    const failed = await api('POST', `${P}/subscriptions/test`, body);
    expect(failed.statusCode).toBe(502);
    expect(message(failed)).toBe(`${WEBHOOK_MESSAGES.testFailure}: the receiver answered 500`);

    const closed = new TestReceiver();
    await closed.start();
    const deadUrl = closed.url;
    await closed.stop();
    const unreachable = await api('POST', `${P}/subscriptions/test`, subscription('test-hook', deadUrl));
    expect(unreachable.statusCode).toBe(502);
    expect(message(unreachable)).toMatch(/^Request failed, unable to test Webhook\./);

    const refused = await api(
      'POST',
      `${P}/subscriptions/test`,
      subscription('test-hook', 'http://169.254.169.254/'),
    );
    expect(refused.statusCode).toBe(400);

    receiver.answer({ status: 200, delayMs: 12_000 });
    const slow = await api('POST', `${P}/subscriptions/test`, body);
    expect(slow.statusCode).toBe(504);
    expect(message(slow)).toMatch(/^Request failed, unable to test Webhook\. no answer within 10 s/);
  }, 40_000);

  it('spec 001 §7: the form’s side calls answer real (empty) lists', async () => {
    expect((await api('GET', '/ui/api/v1/ui/proxies')).json()).toEqual([]);
    expect((await api('GET', '/ui/api/v1/ui/builds/names')).json()).toEqual({ builds: [] });
    expect(
      (
        await api('POST', '/ui/api/v1/ui/permissiontargets/buildPatterns', { includePatterns: ['**'] })
      ).json(),
    ).toEqual({ builds: [] });
    expect(
      (
        await api('POST', '/ui/api/v1/ui/permissiontargets/releaseBundles', {
          includePatterns: ['**'],
          excludePatterns: [],
        })
      ).json(),
    ).toEqual({ bundles: [] });
    expect((await api('GET', '/ui/api/v1/ui/releaseBundles/names')).json()).toEqual([]);
    expect((await api('GET', '/ui/api/v1/ui/releaseBundles/environments')).json()).toEqual([]);
    const local = (await api('GET', '/ui/api/v1/ui/admin/repositories/local/info')).json();
    expect(local).toContainEqual(expect.objectContaining({ repoKey: 'generic-local', repoType: 'local' }));
    expect((await api('GET', '/ui/api/v1/ui/admin/repositories/remote/info')).json()).toEqual([]);
    const doc = (await api('GET', '/api/openapi.json')).json();
    expect(Object.keys(doc.paths)).toContain('/event/api/v1/subscriptions/{key}');
  });
});

describe(`webhooks without an allow-list (${testEngine})`, () => {
  let t: TestApp;
  beforeAll(async () => {
    t = await createTestApp();
  });
  afterAll(async () => {
    await t?.close();
  });
  it('spec 001 §5: a webhook URL on 127.0.0.1 is refused unless GRANARY_OUTBOUND_ALLOWLIST names it', async () => {
    const res = await t.app.inject({
      method: 'POST',
      url: `${P}/subscriptions`,
      headers: { authorization: ADMIN },
      payload: subscription('loop-hook', 'http://127.0.0.1:9/hook'),
    });
    expect(res.statusCode).toBe(400);
    expect(res.json().errors[0].message).toBe(
      'Enter a valid URL: 127.0.0.1 is a loopback address; webhooks may not reach loopback, private, link-local or metadata addresses unless GRANARY_OUTBOUND_ALLOWLIST names the host or the address',
    );
  });
});
