import { EVENT_CATALOG, type EventDomain } from '@granary/contracts';
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { testImage } from '../../formats/docker/oci-testing.ts';
import {
  basicAuth,
  createTestApp,
  TEST_ADMIN_PASSWORD,
  type TestApp,
  testEngine,
} from '../../testing/index.ts';
import { listEvents } from './index.ts';

const ADMIN = basicAuth('admin', TEST_ADMIN_PASSWORD);

/** Outbox types the server keeps for itself: never delivered, so outside the catalogue. */
const INTERNAL = /^repository\./;

describe(`issue 14 §Events: the event catalogue and the outbox agree (${testEngine})`, () => {
  let t: TestApp;
  beforeAll(async () => {
    t = await createTestApp();
  });
  afterAll(async () => {
    await t?.close();
  });
  const call = async (
    method: string,
    url: string,
    payload?: unknown,
    headers: Record<string, string> = {},
  ) => {
    const res = await t.app.inject({
      method: method as 'GET',
      url,
      headers: { authorization: ADMIN, ...headers },
      ...(payload !== undefined ? { payload: payload as string } : {}),
    });
    expect(res.statusCode, `${method} ${url}: ${res.body}`).toBeLessThan(300);
    return res;
  };

  /**
   * A user's action that makes each domain the catalogue marks available produce an event. A domain
   * marked available without an entry here fails the test: give it a real producer and its action.
   */
  const producers: Partial<Record<EventDomain, () => Promise<void>>> = {
    artifact: async () => {
      await call('PUT', '/repository/generic-local/cat/file.txt', 'catalogue', {
        'content-type': 'application/octet-stream',
      });
    },
    artifact_property: async () => {
      await call('PUT', '/api/storage/generic-local/cat/file.txt?properties=stage=qa');
    },
    docker: async () => {
      await call('PUT', '/api/repositories/cat-docker', { rclass: 'local', packageType: 'docker' });
      const image = testImage();
      for (const b of [image.config, ...image.layers])
        await call('POST', `/v2/cat-docker/img/blobs/uploads/?digest=${b.digest}`, b.bytes, {
          'content-type': 'application/octet-stream',
        });
      await call('PUT', '/v2/cat-docker/img/manifests/1.0', image.manifest, {
        'content-type': image.mediaType,
      });
    },
    user: async () => {
      await call('PUT', '/api/security/users/cata', { password: 'Catalogue-Pa55word!' });
    },
  };

  it('issue 14 §Events: every domain the catalogue marks available has a producer; what is produced is a catalogue type with snake_case data', async () => {
    const available = EVENT_CATALOG.filter((d) => d.available).map((d) => d.domain);
    expect(available.filter((d) => !producers[d])).toEqual([]);
    for (const domain of available) await producers[domain]!();

    const events = (await listEvents(t.app.granary.database.db)).filter((e) => !INTERNAL.test(e.type));
    const produced = new Set(events.map((e) => e.type.slice(0, e.type.indexOf('.'))));
    for (const domain of available) expect(produced, `no ${domain}.* event was produced`).toContain(domain);

    const catalogue = new Set(
      EVENT_CATALOG.flatMap((d) => d.event_types.map((type) => `${d.domain}.${type.type}`)),
    );
    for (const e of events) {
      expect(catalogue, `${e.type} is not in the catalogue`).toContain(e.type);
      for (const key of Object.keys(e.payload)) expect(key, `${e.type} data`).toMatch(/^[a-z0-9_]+$/);
    }
    // A domain the catalogue says nothing produces yet indeed has no producer.
    const unavailable = EVENT_CATALOG.filter((d) => !d.available).map((d) => d.domain as string);
    expect([...produced].filter((d) => unavailable.includes(d))).toEqual([]);
  });
});
