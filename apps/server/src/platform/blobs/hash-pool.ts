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
  const job = jobs.get(m.id);
  if (m.ring) {
    jobs.set(m.id, { ring: m.ring, hashes: m.algorithms.map((a) => [a, createHash(a)]) });
  } else if (m.length !== undefined) {
    const bytes = new Uint8Array(job.ring, m.offset, m.length);
    for (const [, hash] of job.hashes) hash.update(bytes);
    parentPort.postMessage({ id: m.id, done: m.length });
  } else if (m.end) {
    jobs.delete(m.id);
    const digests = {};
    for (const [a, hash] of job.hashes) digests[a] = hash.digest('hex');
    parentPort.postMessage({ id: m.id, digests });
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

type Algorithm = 'md5' | 'sha1';
type Digests = Partial<Record<Algorithm, string>>;

/** One upload's hashes on one worker. */
interface Pending {
  /** bytes the worker has hashed */
  done: number;
  wakeUp?: () => void;
  result?: (digests: Digests) => void;
  fail?: (error: Error) => void;
}

class HashWorker {
  private readonly worker: Worker;
  readonly jobs = new Map<number, Pending>();

  constructor() {
    this.worker = new Worker(WORKER_SOURCE, { eval: true });
    this.worker.unref();
    this.worker.on('message', (m: { id: number; done?: number; digests?: Digests }) => {
      const job = this.jobs.get(m.id);
      if (!job) return;
      if (m.done !== undefined) {
        job.done += m.done;
        job.wakeUp?.();
      } else {
        this.jobs.delete(m.id);
        job.result?.(m.digests!);
      }
    });
    this.worker.on('error', (error) => {
      for (const job of this.jobs.values()) job.fail?.(error);
      this.jobs.clear();
      workers.splice(workers.indexOf(this), 1);
    });
  }

  post(message: unknown): void {
    this.worker.postMessage(message);
  }
}

const workers: HashWorker[] = [];
let nextId = 1;
let nextWorker = 0;

/**
 * Where an upload's hashes run. With a core to spare for each (three or more), MD5 goes to one
 * worker and SHA-1 to another, so the slower hash alone sets the pace (MD5 ~560 MiB/s, SHA-1
 * ~1.3 GiB/s here) instead of both in a row (~390 MiB/s, which held a 1 GiB upload to the worker's
 * speed). With two cores, one worker hashes both: a second one only competes with the request's
 * thread (measured: the same throughput, the request's thread a third busier).
 */
function placeHashes(): [HashWorker, Algorithm[]][] {
  const split = os.availableParallelism() >= 3;
  while (workers.length < (split ? 2 : 1)) workers.push(new HashWorker());
  nextWorker = (nextWorker + 1) % workers.length;
  const first = workers[nextWorker]!;
  if (!split || workers.length < 2) return [[first, ['md5', 'sha1']]];
  return [
    [first, ['md5']],
    [workers[(nextWorker + 1) % workers.length]!, ['sha1']],
  ];
}

/** Hashes in progress on each worker (for tests). */
export const workerJobs = (): number[] => workers.map((w) => w.jobs.size);

/** A hash of one upload running on a worker: where it runs and how far it has got. */
interface Remote {
  worker: HashWorker;
  id: number;
  job: Pending;
}

/**
 * SHA-1 and MD5 of a stream of chunks: small inputs are hashed here at the end, large ones on
 * workers as they come. Chunks given to `update` must not change afterwards (they are kept until
 * copied or hashed).
 */
export class SideHashes {
  private held: Buffer[] = [];
  private heldBytes = 0;
  /** MD5 and SHA-1 on workers (one or two), reading the same ring */
  private remotes: Remote[] | undefined;
  /** hashes kept on this thread: a large upload while every ring is in use */
  private inline: { sha1: Hash; md5: Hash } | undefined;
  private ring: SharedArrayBuffer | undefined;
  private ringView: Uint8Array | undefined;
  /** where the next bytes go in the ring */
  private head = 0;
  /** bytes copied into the ring so far */
  private sent = 0;
  /** bytes copied into the ring that the workers have not been told about yet */
  private pendingStart = 0;
  private pendingLength = 0;

  /**
   * Takes a chunk: returns nothing when it is taken at once (the usual case: no promise per socket
   * chunk), else a promise that resolves when the workers have caught up enough to take the rest.
   */
  update(chunk: Buffer): Promise<void> | undefined {
    if (this.inline) {
      this.inline.sha1.update(chunk);
      this.inline.md5.update(chunk);
      return;
    }
    if (this.remotes) {
      try {
        return this.send(chunk, 0);
      } catch (error) {
        return Promise.reject(error);
      }
    }
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
    this.ring = spareRings.pop() ?? new SharedArrayBuffer(RING_BYTES);
    this.ringView = new Uint8Array(this.ring);
    this.remotes = placeHashes().map(([worker, algorithms]) => {
      const remote = { worker, id: nextId++, job: { done: 0 } };
      worker.jobs.set(remote.id, remote.job);
      worker.post({ id: remote.id, ring: this.ring, algorithms });
      return remote;
    });
    const held = this.held;
    this.held = [];
    return (async () => {
      for (const c of held) await this.send(c, 0);
    })();
  }

  /**
   * Copies a chunk into the ring from `offset`, in pieces that fit before its end and in its free
   * space; nothing to wait for (undefined) unless the ring is full.
   */
  private send(chunk: Buffer, offset: number): Promise<void> | undefined {
    while (offset < chunk.length) {
      const length = Math.min(chunk.length - offset, RING_BYTES - this.head, RING_BYTES / 2);
      // The ring's space is free again once both hashes have read it.
      const slowest = this.slowest();
      if (this.sent - slowest.done + length > RING_BYTES) {
        this.flush();
        return this.drained(slowest).then(() => this.send(chunk, offset));
      }
      this.ringView!.set(chunk.subarray(offset, offset + length), this.head);
      this.sent += length;
      if (this.pendingLength === 0) this.pendingStart = this.head;
      this.pendingLength += length;
      this.head = (this.head + length) % RING_BYTES;
      // One message per MiB (not per socket chunk), and a range never runs past the ring's end.
      if (this.head === 0 || this.pendingLength >= BATCH_BYTES) this.flush();
      offset += length;
    }
    return undefined;
  }

  /** The job furthest behind (it holds the ring's space); throws when a worker failed. */
  private slowest(): Pending {
    let slowest: Pending | undefined;
    for (const r of this.remotes!) {
      if (r.worker.jobs.get(r.id) !== r.job) throw new Error('hash worker failed');
      if (!slowest || r.job.done < slowest.done) slowest = r.job;
    }
    return slowest!;
  }

  /** Hands the bytes copied since the last message to the workers. */
  private flush(): void {
    if (this.pendingLength === 0) return;
    for (const r of this.remotes!)
      r.worker.post({ id: r.id, offset: this.pendingStart, length: this.pendingLength });
    this.pendingLength = 0;
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

  private finish(remote: Remote): Promise<Digests> {
    if (remote.worker.jobs.get(remote.id) !== remote.job)
      return Promise.reject(new Error('hash worker failed'));
    const result = new Promise<Digests>((resolve, reject) => {
      remote.job.result = resolve;
      remote.job.fail = reject;
    });
    remote.worker.post({ id: remote.id, end: true });
    return result;
  }

  async digest(): Promise<{ sha1: string; md5: string }> {
    if (this.inline) return { sha1: this.inline.sha1.digest('hex'), md5: this.inline.md5.digest('hex') };
    if (!this.remotes) {
      const sha1 = createHash('sha1');
      const md5 = createHash('md5');
      for (const c of this.held) {
        sha1.update(c);
        md5.update(c);
      }
      this.held = [];
      return { sha1: sha1.digest('hex'), md5: md5.digest('hex') };
    }
    this.flush();
    const digests = Object.assign(
      {},
      ...(await Promise.all(this.remotes.map((r) => this.finish(r)))),
    ) as Digests;
    // Every piece is hashed once both digests are back: the ring can serve another upload.
    this.releaseRing();
    return { sha1: digests.sha1!, md5: digests.md5! };
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
    for (const r of this.remotes ?? [])
      if (r.worker.jobs.delete(r.id)) r.worker.post({ id: r.id, abort: true });
    // A worker may still be reading it: this ring is not reused.
    if (this.ring) ringsInUse -= 1;
    this.ring = undefined;
    this.ringView = undefined;
  }
}
