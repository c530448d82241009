import { createHash, type Hash } from 'node:crypto';
import os from 'node:os';
import { Worker } from 'node:worker_threads';

/**
 * SHA-1 and MD5 of large uploads are computed on worker threads while the request's thread hashes
 * SHA-256 and writes the file: MD5 alone costs more than SHA-256 and SHA-1 together (84 ms for a
 * 61 MB image here), so hashing all three on one thread made a push twice as slow as the reference
 * registry. Bytes are copied into a ring of shared memory the worker reads (a memcpy, far cheaper
 * than the hashes, and no allocation: a worker's idle garbage collector would let copies pile up);
 * when the ring is full the upload waits (backpressure).
 */
const WORKER_SOURCE = `
const { parentPort } = require('node:worker_threads');
const { createHash } = require('node:crypto');
const jobs = new Map();
parentPort.on('message', (m) => {
  let job = jobs.get(m.id);
  if (m.ring) {
    jobs.set(m.id, { ring: m.ring, sha1: createHash('sha1'), md5: createHash('md5') });
  } else if (m.length !== undefined) {
    const bytes = new Uint8Array(job.ring, m.offset, m.length);
    job.sha1.update(bytes);
    job.md5.update(bytes);
    parentPort.postMessage({ id: m.id, done: m.length });
  } else if (m.end) {
    if (!job) job = { sha1: createHash('sha1'), md5: createHash('md5') };
    jobs.delete(m.id);
    parentPort.postMessage({ id: m.id, sha1: job.sha1.digest('hex'), md5: job.md5.digest('hex') });
  } else if (m.abort) jobs.delete(m.id);
});
`;

/** Uploads up to this size hash on their own thread: a round trip to a worker costs more. */
export const INLINE_HASH_BYTES = 1024 * 1024;
const RING_BYTES = 8 * 1024 * 1024;
const BATCH_BYTES = 1024 * 1024;
/** Rings kept for the next large uploads. */
const RINGS_KEPT = 4;
/** Large uploads hashed on workers at once; more hash on their own thread (memory stays bounded). */
const MAX_RINGS_IN_USE = 8;
const spareRings: SharedArrayBuffer[] = [];
let ringsInUse = 0;

interface Pending {
  inFlight: number;
  wakeUp?: () => void;
  result?: (digests: { sha1: string; md5: string }) => void;
  fail?: (error: Error) => void;
}

class HashWorker {
  private readonly worker: Worker;
  readonly jobs = new Map<number, Pending>();

  constructor() {
    this.worker = new Worker(WORKER_SOURCE, { eval: true });
    this.worker.unref();
    this.worker.on('message', (m: { id: number; done?: number; sha1?: string; md5?: string }) => {
      const job = this.jobs.get(m.id);
      if (!job) return;
      if (m.done !== undefined) {
        job.inFlight -= m.done;
        job.wakeUp?.();
      } else {
        this.jobs.delete(m.id);
        job.result?.({ sha1: m.sha1!, md5: m.md5! });
      }
    });
    this.worker.on('error', (error) => {
      for (const job of this.jobs.values()) job.fail?.(error);
      this.jobs.clear();
      workers.splice(workers.indexOf(this), 1);
    });
  }

  post(message: unknown, transfer?: ArrayBuffer[]): void {
    this.worker.postMessage(message, transfer);
  }
}

const workers: HashWorker[] = [];
let nextId = 1;
let nextWorker = 0;

function pickWorker(): HashWorker {
  const size = Math.max(1, Math.min(2, os.availableParallelism() - 1));
  if (workers.length < size) workers.push(new HashWorker());
  nextWorker = (nextWorker + 1) % workers.length;
  return workers[nextWorker]!;
}

/**
 * SHA-1 and MD5 of a stream of chunks: small inputs are hashed here at the end, large ones on a
 * worker as they come. Chunks given to `update` must not change afterwards (they are kept until
 * copied or hashed).
 */
export class SideHashes {
  private held: Buffer[] = [];
  private heldBytes = 0;
  private worker: HashWorker | undefined;
  /** hashes kept on this thread: a large upload while every ring is in use */
  private inline: { sha1: Hash; md5: Hash } | undefined;
  private ring: SharedArrayBuffer | undefined;
  private ringView: Uint8Array | undefined;
  /** where the next bytes go in the ring */
  private head = 0;
  /** bytes copied into the ring that the worker has not been told about yet */
  private pendingStart = 0;
  private pendingLength = 0;
  private readonly id = nextId++;

  /** Resolves at once, or when the worker has caught up enough to take more. */
  async update(chunk: Buffer): Promise<void> {
    if (this.inline) {
      this.inline.sha1.update(chunk);
      this.inline.md5.update(chunk);
      return;
    }
    if (!this.worker) {
      this.held.push(chunk);
      this.heldBytes += chunk.length;
      if (this.heldBytes <= INLINE_HASH_BYTES) return;
      if (ringsInUse >= MAX_RINGS_IN_USE) {
        this.inline = { sha1: createHash('sha1'), md5: createHash('md5') };
        for (const c of this.held) {
          this.inline.sha1.update(c);
          this.inline.md5.update(c);
        }
        this.held = [];
        return;
      }
      ringsInUse += 1;
      this.worker = pickWorker();
      this.ring = spareRings.pop() ?? new SharedArrayBuffer(RING_BYTES);
      this.ringView = new Uint8Array(this.ring);
      this.worker.jobs.set(this.id, { inFlight: 0 });
      this.worker.post({ id: this.id, ring: this.ring });
      const held = this.held;
      this.held = [];
      for (const c of held) await this.send(c);
      return;
    }
    await this.send(chunk);
  }

  /** Copies a chunk into the ring, in pieces that fit before its end and in its free space. */
  private async send(chunk: Buffer): Promise<void> {
    let offset = 0;
    while (offset < chunk.length) {
      const job = this.job();
      const length = Math.min(chunk.length - offset, RING_BYTES - this.head, RING_BYTES / 2);
      while (job.inFlight + length > RING_BYTES) {
        this.flush();
        await this.drained(job);
      }
      this.ringView!.set(chunk.subarray(offset, offset + length), this.head);
      job.inFlight += length;
      if (this.pendingLength === 0) this.pendingStart = this.head;
      this.pendingLength += length;
      this.head = (this.head + length) % RING_BYTES;
      // One message per MiB (not per socket chunk), and a range never runs past the ring's end.
      if (this.head === 0 || this.pendingLength >= BATCH_BYTES) this.flush();
      offset += length;
    }
  }

  /** Hands the bytes copied since the last message to the worker. */
  private flush(): void {
    if (this.pendingLength === 0) return;
    this.worker!.post({ id: this.id, offset: this.pendingStart, length: this.pendingLength });
    this.pendingLength = 0;
  }

  private job(): Pending {
    const job = this.worker?.jobs.get(this.id);
    if (!job) throw new Error('hash worker failed');
    return job;
  }

  private drained(job: Pending): Promise<void> {
    return new Promise<void>((resolve, reject) => {
      job.wakeUp = () => {
        job.wakeUp = undefined;
        resolve();
      };
      job.fail = reject;
    });
  }

  async digest(): Promise<{ sha1: string; md5: string }> {
    if (this.inline) return { sha1: this.inline.sha1.digest('hex'), md5: this.inline.md5.digest('hex') };
    if (!this.worker) {
      const sha1 = createHash('sha1');
      const md5 = createHash('md5');
      for (const c of this.held) {
        sha1.update(c);
        md5.update(c);
      }
      this.held = [];
      return { sha1: sha1.digest('hex'), md5: md5.digest('hex') };
    }
    const job = this.job();
    const result = new Promise<{ sha1: string; md5: string }>((resolve, reject) => {
      job.result = resolve;
      job.fail = reject;
    });
    this.flush();
    this.worker.post({ id: this.id, end: true });
    const digests = await result;
    // Every piece is hashed once the digests are back: the ring can serve another upload.
    this.releaseRing();
    return digests;
  }

  private releaseRing(): void {
    if (this.ring && spareRings.length < RINGS_KEPT) spareRings.push(this.ring);
    if (this.ring) ringsInUse -= 1;
    this.ring = undefined;
    this.ringView = undefined;
  }

  /** Drops the job (an upload that failed). */
  abort(): void {
    this.held = [];
    if (this.worker?.jobs.delete(this.id)) this.worker.post({ id: this.id, abort: true });
    // The worker may still be reading it: this ring is not reused.
    if (this.ring) ringsInUse -= 1;
    this.ring = undefined;
    this.ringView = undefined;
  }
}
