import { Counter, collectDefaultMetrics, Gauge, Histogram, Registry } from 'prom-client';
import { KeyedCounter, KeyedHistogram } from './fast-metrics.ts';

/** Seconds: from a fast metadata GET to a multi-minute upload. */
const DURATION_BUCKETS = [0.001, 0.005, 0.01, 0.025, 0.05, 0.1, 0.25, 0.5, 1, 2.5, 5, 10, 30, 60, 300];
/** Seconds: one blob store call (a small stat to a large upload). */
const STORE_BUCKETS = [0.0005, 0.001, 0.0025, 0.005, 0.01, 0.025, 0.05, 0.1, 0.25, 0.5, 1, 5, 30];

/**
 * The process's Prometheus metrics (`GET /api/v1/metrics`, issue 15 "Metrics"). One registry per
 * server instance, not prom-client's global one, so two servers in one process (tests) do not share
 * counters. Counters are this node's own, as Prometheus expects of a scraped target; the
 * cluster-wide gauges (artifact counts, backlog) are read from the database at scrape time, so every
 * node answers the same for them.
 */
export class Metrics {
  readonly registry = new Registry();

  // The request path's metrics (every answer counts into them): keyed, see fast-metrics.ts.
  /** labels method, route, status, repo_type */
  readonly httpRequests = new KeyedCounter(
    'granary_http_requests_total',
    'HTTP requests answered, by method, route template, status code and repository type',
    this.registry,
  );

  /** labels method, route */
  readonly httpDuration = new KeyedHistogram(
    'granary_http_request_duration_seconds',
    'Time to answer an HTTP request, by method and route template',
    this.registry,
    DURATION_BUCKETS,
  );

  /** label repo_type */
  readonly bytesIn = new KeyedCounter(
    'granary_http_received_bytes_total',
    'Bytes received on HTTP connections (request lines, headers and bodies), by repository type',
    this.registry,
  );

  /** label repo_type */
  readonly bytesOut = new KeyedCounter(
    'granary_http_sent_bytes_total',
    'Bytes sent on HTTP connections (status lines, headers and bodies), by repository type',
    this.registry,
  );

  /** label repo_type */
  readonly uploadDuration = new KeyedHistogram(
    'granary_upload_duration_seconds',
    'Duration of uploads to repositories (PUT, POST, PATCH with a body), by repository type',
    this.registry,
    DURATION_BUCKETS,
  );

  /** label repo_type */
  readonly downloadDuration = new KeyedHistogram(
    'granary_download_duration_seconds',
    'Duration of successful downloads from repositories (GET), by repository type',
    this.registry,
    DURATION_BUCKETS,
  );

  readonly blobStoreDuration = new Histogram({
    name: 'granary_blobstore_operation_duration_seconds',
    help: 'Blob store calls, by operation (put: the whole write; get: until the stream is open) and outcome',
    labelNames: ['operation', 'outcome'] as const,
    buckets: STORE_BUCKETS,
    registers: [this.registry],
  });

  readonly webhookDeliveries = new Counter({
    name: 'granary_webhook_deliveries_total',
    help: 'Webhook delivery attempts made by this node, by outcome (delivered; retry: to be tried again; refused: not worth another try; gone: the receiver answered 410)',
    labelNames: ['outcome'] as const,
    registers: [this.registry],
  });

  constructor() {
    // Event-loop lag, heap, RSS, CPU, handles: prom-client's process and Node.js collectors.
    collectDefaultMetrics({ register: this.registry, eventLoopMonitoringPrecision: 20 });
  }

  /** A gauge whose value is read when scraped (`collect` sets it); errors leave the gauge empty. */
  gauge<L extends string>(
    name: string,
    help: string,
    labelNames: readonly L[],
    collect: (set: (labels: Partial<Record<L, string>>, value: number) => void) => Promise<void>,
  ): void {
    new Gauge<L>({
      name,
      help,
      labelNames,
      registers: [this.registry],
      async collect() {
        this.reset();
        try {
          await collect((labels, value) => this.set(labels, value));
        } catch {
          // The scrape still answers; this gauge is empty until its source answers again.
        }
      },
    });
  }

  contentType(): string {
    return this.registry.contentType;
  }

  render(): Promise<string> {
    return this.registry.metrics();
  }
}
