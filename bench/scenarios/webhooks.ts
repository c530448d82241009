// Webhooks (issue 14): how long from an artifact's commit to its delivery at a receiver, and what
// subscriptions cost the deploys that trigger them. No peer: Artifactory's webhooks are not among
// the Debian packages; the targets are DESIGN.md's (p99 < 1 s; deploy rate with ÷ without ≥ 0.95).
import { createServer, type IncomingMessage } from 'node:http';
import type { AddressInfo } from 'node:net';
import { startGranary } from '../lib/servers.ts';

const DEPLOYS = Number(process.env.BENCH_WEBHOOK_DEPLOYS ?? 1000);
const SUBSCRIPTIONS = 5;
const CONCURRENCY = 10;
const AUTH = `Basic ${Buffer.from('admin:bench-password').toString('base64')}`;

const readBody = (req: IncomingMessage) =>
  new Promise<string>((resolve) => {
    let body = '';
    req.setEncoding('utf8');
    req.on('data', (d: string) => {
      body += d;
    });
    req.on('end', () => resolve(body));
  });

const percentile = (values: number[], p: number) => {
  const sorted = [...values].sort((a, b) => a - b);
  return sorted[Math.min(sorted.length - 1, Math.floor((sorted.length * p) / 100))]!;
};

export async function run(): Promise<void> {
  // Arrival time of each delivery, by subscription and path.
  const arrivals = new Map<string, number>();
  const receiver = createServer(async (req, res) => {
    const body = JSON.parse(await readBody(req)) as { subscription_key: string; data: { path: string } };
    arrivals.set(`${body.subscription_key} ${body.data.path}`, performance.now());
    res.writeHead(204).end();
  });
  await new Promise<void>((r) => receiver.listen(0, '127.0.0.1', r));
  const hook = `http://127.0.0.1:${(receiver.address() as AddressInfo).port}/hook`;
  const granary = await startGranary({ GRANARY_OUTBOUND_ALLOWLIST: '127.0.0.1' });
  const api = (p: string, init: RequestInit = {}) =>
    fetch(`${granary.url}${p}`, {
      ...init,
      headers: { authorization: AUTH, 'content-type': 'application/json', ...init.headers },
    });
  try {
    for (const key of ['bench-plain', 'bench-hooked']) {
      const res = await api(`/api/repositories/${key}`, {
        method: 'PUT',
        body: JSON.stringify({ rclass: 'local', packageType: 'generic' }),
      });
      if (res.status !== 201) throw new Error(`create ${key}: ${res.status} ${await res.text()}`);
    }
    for (let i = 0; i < SUBSCRIPTIONS; i++) {
      const res = await api('/event/api/v1/subscriptions', {
        method: 'POST',
        body: JSON.stringify({
          key: `bench${i}`,
          enabled: true,
          event_filter: {
            domain: 'artifact',
            event_types: ['deployed'],
            criteria: { anyLocal: false, anyRemote: false, repoKeys: ['bench-hooked'] },
          },
          handlers: [
            { handler_type: 'webhook', url: hook, secret: `bench-secret-${i}`, use_secret_for_signing: true },
          ],
        }),
      });
      if (res.status !== 201) throw new Error(`subscription: ${res.status} ${await res.text()}`);
    }

    /** DEPLOYS small files, CONCURRENCY at once; when each one's answer came (its commit). */
    const deploy = async (repo: string, prefix = 'bench') => {
      const committed = new Map<string, number>();
      let next = 0;
      const start = performance.now();
      await Promise.all(
        Array.from({ length: CONCURRENCY }, async () => {
          while (next < DEPLOYS) {
            const path = `${prefix}/file-${next++}.txt`;
            const res = await api(`/repository/${repo}/${path}`, {
              method: 'PUT',
              body: `content of ${path}\n`,
            });
            if (res.status !== 201) throw new Error(`deploy: ${res.status} ${await res.text()}`);
            committed.set(path, performance.now());
          }
        }),
      );
      return { committed, rate: DEPLOYS / ((performance.now() - start) / 1000) };
    };

    await deploy('bench-plain', 'warm-up');
    const plain = await deploy('bench-plain');
    const hooked = await deploy('bench-hooked');
    const expected = DEPLOYS * SUBSCRIPTIONS;
    const deadline = Date.now() + 120_000;
    while (arrivals.size < expected && Date.now() < deadline) await new Promise((r) => setTimeout(r, 100));

    const latencies: number[] = [];
    for (const [path, at] of hooked.committed)
      for (let i = 0; i < SUBSCRIPTIONS; i++) {
        const arrived = arrivals.get(`bench${i} ${path}`);
        if (arrived !== undefined) latencies.push(arrived - at);
      }
    console.log(
      `\nWH1 ${DEPLOYS} generic deploys (${CONCURRENCY} at once), ${SUBSCRIPTIONS} subscriptions, signed deliveries to a loopback receiver`,
    );
    console.log(`  delivered        ${latencies.length} of ${expected}`);
    console.log(
      `  commit→delivery  median ${percentile(latencies, 50).toFixed(0)} ms, p99 ${percentile(latencies, 99).toFixed(0)} ms (goal p99 < 1000 ms)`,
    );
    console.log(
      `  deploy rate      ${hooked.rate.toFixed(0)}/s with subscriptions, ${plain.rate.toFixed(0)}/s without: ${(hooked.rate / plain.rate).toFixed(2)} (goal ≥ 0.95)`,
    );
  } finally {
    await granary.stop();
    receiver.close();
  }
}
