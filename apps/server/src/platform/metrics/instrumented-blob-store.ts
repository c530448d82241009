import type { BlobStore } from '../blobs/index.ts';
import type { Metrics } from './metrics.ts';

/**
 * The blob store with each call timed into `granary_blobstore_operation_duration_seconds`: `put`
 * for the whole write, `get`/`openFile` until the content is open, `stat` and `delete` whole.
 */
export function instrumentBlobStore(store: BlobStore, metrics: Metrics): BlobStore {
  const histogram = metrics.blobStoreDuration;
  const timed = async <T>(operation: string, run: () => Promise<T>): Promise<T> => {
    const end = histogram.startTimer({ operation });
    try {
      const result = await run();
      end({ outcome: 'ok' });
      return result;
    } catch (err) {
      end({ outcome: 'error' });
      throw err;
    }
  };
  const instrumented: BlobStore = {
    kind: store.kind,
    put: (source, expected, opts) => timed('put', () => store.put(source, expected, opts)),
    stat: (sha256) => timed('stat', () => store.stat(sha256)),
    get: (sha256, range) => timed('get', () => store.get(sha256, range)),
    delete: (sha256) => timed('delete', () => store.delete(sha256)),
    quarantine: (sha256) => store.quarantine(sha256),
    list: () => store.list(),
    purgeTemp: () => store.purgeTemp(),
    close: () => store.close(),
  };
  const { openFile } = store;
  if (openFile) instrumented.openFile = (sha256) => timed('get', () => openFile.call(store, sha256));
  return instrumented;
}
