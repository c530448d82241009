import http from 'node:http';
import type { AddressInfo } from 'node:net';

/** One request a test receiver got. */
export interface Arrival {
  method: string;
  url: string;
  headers: Record<string, string>;
  body: string;
  at: number;
}

export interface Reply {
  status: number;
  headers?: Record<string, string>;
  body?: string;
  /** Wait this long before answering (a receiver that hangs). */
  delayMs?: number;
}

/**
 * A real HTTP receiver on a free loopback port, for webhook tests: it records every request and
 * answers with the replies queued by the test (then with `fallback`).
 */
export class TestReceiver {
  readonly arrivals: Arrival[] = [];
  private readonly replies: Reply[] = [];
  fallback: Reply = { status: 200, body: 'ok' };
  private server: http.Server | undefined;
  port = 0;

  get url(): string {
    return `http://127.0.0.1:${this.port}/hook`;
  }

  /** Queues the answers to the next requests, in order. */
  answer(...replies: Reply[]): void {
    this.replies.push(...replies);
  }

  async start(port = 0): Promise<this> {
    this.server = http.createServer((req, res) => {
      const chunks: Buffer[] = [];
      req.on('data', (c: Buffer) => chunks.push(c));
      req.on('end', () => {
        const headers: Record<string, string> = {};
        for (const [k, v] of Object.entries(req.headers))
          headers[k] = Array.isArray(v) ? v.join(', ') : String(v);
        this.arrivals.push({
          method: req.method ?? '',
          url: req.url ?? '',
          headers,
          body: Buffer.concat(chunks).toString('utf8'),
          at: Date.now(),
        });
        const reply = this.replies.shift() ?? this.fallback;
        const send = () => {
          if (res.destroyed) return;
          res.writeHead(reply.status, reply.headers ?? {});
          res.end(reply.body ?? '');
        };
        if (reply.delayMs) setTimeout(send, reply.delayMs).unref();
        else send();
      });
    });
    await new Promise<void>((resolve) => this.server!.listen(port, '127.0.0.1', resolve));
    this.port = (this.server.address() as AddressInfo).port;
    return this;
  }

  async stop(): Promise<void> {
    const server = this.server;
    this.server = undefined;
    if (!server) return;
    server.closeAllConnections();
    await new Promise<void>((resolve) => server.close(() => resolve()));
  }

  /** Arrivals whose body parses to an event of `type` (`artifact.deployed`). */
  events(type?: string): { arrival: Arrival; body: Record<string, unknown> }[] {
    const out: { arrival: Arrival; body: Record<string, unknown> }[] = [];
    for (const arrival of this.arrivals) {
      let body: Record<string, unknown>;
      try {
        body = JSON.parse(arrival.body);
      } catch {
        continue;
      }
      if (!type || `${body.domain}.${body.event_type}` === type) out.push({ arrival, body });
    }
    return out;
  }

  /** Waits until `predicate` holds (polling), or fails naming what arrived. */
  async waitFor(predicate: () => boolean, timeoutMs = 15_000, what = 'deliveries'): Promise<void> {
    const deadline = Date.now() + timeoutMs;
    while (!predicate()) {
      if (Date.now() > deadline)
        throw new Error(
          `timed out waiting for ${what}; got ${this.arrivals.length}: ${this.arrivals.map((a) => a.body.slice(0, 200)).join('\n')}`,
        );
      await new Promise((r) => setTimeout(r, 50));
    }
  }
}
