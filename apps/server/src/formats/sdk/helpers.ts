/**
 * Helpers every format builds on instead of writing its own (issue 13 §5): one serial queue and one
 * bounded reader for the whole server, each caller keeping its client's error shape.
 */
export { SerialQueue } from '../../platform/concurrency/serial-queue.ts';
export {
  type BoundedReadOptions,
  type ByteSource,
  readBounded,
} from '../../platform/streams/read-bounded.ts';
