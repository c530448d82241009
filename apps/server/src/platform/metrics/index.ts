export { instrumentBlobStore } from './instrumented-blob-store.ts';
export { Metrics } from './metrics.ts';
export { registerRequestMetrics } from './request-metrics.ts';
