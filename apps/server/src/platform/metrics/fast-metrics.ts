import type { Metric, Registry } from 'prom-client';

/** A sample as the registry prints it: `metricName{labels} value`. */
interface Sample {
  labels: Record<string, string | number>;
  value: number;
  metricName: string;
}

/** What the registry reads from a metric when scraped. */
interface Scraped {
  name: string;
  help: string;
  type: 'counter' | 'histogram';
  aggregator: 'sum';
  values: Sample[];
}

/**
 * A counter or histogram for the request path, registered in a prom-client registry and scraped like
 * its own. prom-client's `inc`/`observe` check and hash the label object on every call (a twentieth
 * of a ping, issue 24); these take a key the caller builds (a string of the label values) and keep
 * plain numbers per key: one Map lookup per call. The labels object is made once per key.
 */
abstract class KeyedMetric<E> {
  protected readonly entries = new Map<string, E>();

  constructor(
    readonly name: string,
    readonly help: string,
    registry: Registry,
  ) {
    // The registry reads name, help, type and get(): the same contract its own metrics keep.
    registry.registerMetric(this as unknown as Metric);
  }

  reset(): void {
    this.entries.clear();
  }
}

interface CounterEntry {
  labels: Record<string, string>;
  value: number;
}

export class KeyedCounter extends KeyedMetric<CounterEntry> {
  readonly type = 'counter';
  readonly aggregator = 'sum';

  /** Adds `by` to the series `key`; `labels` is called only the first time the key is seen. */
  inc(key: string, labels: () => Record<string, string>, by = 1): void {
    const entry = this.entries.get(key);
    if (entry) entry.value += by;
    else this.entries.set(key, { labels: labels(), value: by });
  }

  async get(): Promise<Scraped> {
    return {
      name: this.name,
      help: this.help,
      type: 'counter',
      aggregator: 'sum',
      values: [...this.entries.values()].map(({ labels, value }) => ({
        labels,
        value,
        metricName: this.name,
      })),
    };
  }
}

interface HistogramEntry {
  labels: Record<string, string>;
  /** observations per bucket (not cumulative); the last one is +Inf */
  counts: Float64Array;
  sum: number;
  count: number;
}

export class KeyedHistogram extends KeyedMetric<HistogramEntry> {
  readonly type = 'histogram';
  readonly aggregator = 'sum';

  constructor(
    name: string,
    help: string,
    registry: Registry,
    private readonly buckets: readonly number[],
  ) {
    super(name, help, registry);
  }

  observe(key: string, labels: () => Record<string, string>, value: number): void {
    let entry = this.entries.get(key);
    if (!entry) {
      entry = { labels: labels(), counts: new Float64Array(this.buckets.length + 1), sum: 0, count: 0 };
      this.entries.set(key, entry);
    }
    let i = 0;
    while (i < this.buckets.length && value > this.buckets[i]!) i++;
    entry.counts[i]! += 1;
    entry.sum += value;
    entry.count += 1;
  }

  async get(): Promise<Scraped> {
    const values: Sample[] = [];
    for (const { labels, counts, sum, count } of this.entries.values()) {
      let cumulative = 0;
      for (let i = 0; i <= this.buckets.length; i++) {
        cumulative += counts[i]!;
        const le = i < this.buckets.length ? this.buckets[i]! : '+Inf';
        values.push({ labels: { le, ...labels }, value: cumulative, metricName: `${this.name}_bucket` });
      }
      values.push({ labels, value: sum, metricName: `${this.name}_sum` });
      values.push({ labels, value: count, metricName: `${this.name}_count` });
    }
    return {
      name: this.name,
      help: this.help,
      type: 'histogram',
      aggregator: 'sum',
      values,
    };
  }
}
