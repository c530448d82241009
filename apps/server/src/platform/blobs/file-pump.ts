import type { FileHandle } from 'node:fs/promises';
import type { ServerResponse } from 'node:http';
import { BlobDamagedError } from './errors.ts';
import type { BlobVerifier } from './verify.ts';

/** Each response reads and writes in chunks this large: big chunks serve big files fastest. */
export const PUMP_CHUNK_BYTES = 1024 * 1024;
/** Chunks kept for reuse across responses (the rest are left to the garbage collector). */
const POOL_MAX = 32;

const pool: Buffer[] = [];
const take = (): Buffer => pool.pop() ?? Buffer.allocUnsafeSlow(PUMP_CHUNK_BYTES);
const give = (buffers: Buffer[]): void => {
  for (const b of buffers) if (pool.length < POOL_MAX) pool.push(b);
};

/** Chunks currently pooled (for tests). */
export const pooledChunks = (): number => pool.length;

export interface PumpOptions {
  /**
   * Checks the bytes as they are read (a whole blob only): the last chunk is written only once
   * every byte has matched; on a mismatch the response is cut instead, so the client sees a broken
   * transfer, never a complete wrong body.
   */
  verify?: BlobVerifier;
  /**
   * Called once, right before the first byte is written (e.g. to send the status and headers). When
   * a damaged blob is found before then (one that fits in a chunk), nothing has been sent: the
   * caller can still answer with an error.
   */
  onFirstWrite?: () => void;
}

/** How a pump ended: every byte sent, or the client went away, or the blob failed verification. */
export interface PumpResult {
  complete: boolean;
  /** The blob failed verification (the response was cut, or never started: see `started`). */
  damaged?: BlobDamagedError;
  /** Reading the file failed mid-response (the response was cut). */
  error?: Error;
  /** `onFirstWrite` was called: the response has begun. */
  started: boolean;
}

/**
 * Writes bytes `start..end` (inclusive) of an open file to a response, through two reused 1 MiB
 * chunks: one is read while the other is written. A chunk is read into again only after the socket
 * has taken all of it (the write's callback), so nothing is allocated per chunk. A stream of fresh
 * 1 MiB Buffers (what `createReadStream` makes) grows external memory so fast that V8 runs a full
 * mark-compact every few chunks once an idle process has shrunk its heap: serving a 50 MiB file
 * fell from 1.5 GB/s to 0.4 GB/s after 30 s idle. The response's headers must already be set (or
 * be written by `onFirstWrite`). Resolves when the last byte is handed to the socket; stops
 * (without error) when the client goes; closes the file either way.
 */
export async function pumpFile(
  res: ServerResponse,
  file: FileHandle,
  start: number,
  end: number,
  opts: PumpOptions = {},
): Promise<PumpResult> {
  const { verify, onFirstWrite } = opts;
  const buffers = [take(), take()];
  const pending: (Promise<boolean> | undefined)[] = [undefined, undefined];
  let gone = false;
  let started = false;
  let onClose = () => {};
  const closed = new Promise<boolean>((resolve) => {
    onClose = () => {
      gone = true;
      resolve(false);
    };
  });
  if (res.destroyed) onClose();
  else res.once('close', onClose);
  // Resolves true once the socket has taken the chunk, false if the client went away first.
  const write = (chunk: Buffer) => {
    if (!started) {
      started = true;
      onFirstWrite?.();
    }
    return Promise.race([
      new Promise<boolean>((resolve) => res.write(chunk, (error) => resolve(!error))),
      closed,
    ]);
  };
  let position = start;
  let slot = 0;
  try {
    while (position <= end && !gone) {
      if (pending[slot] && !(await pending[slot])) break;
      const buffer = buffers[slot]!;
      const want = Math.min(PUMP_CHUNK_BYTES, end - position + 1);
      const { bytesRead } = await file.read(buffer, 0, want, position);
      if (bytesRead === 0) throw new Error(`file ended at byte ${position} of ${end + 1}`);
      position += bytesRead;
      const chunk = bytesRead === PUMP_CHUNK_BYTES ? buffer : buffer.subarray(0, bytesRead);
      if (verify) {
        verify.update(chunk);
        // The last chunk goes out only once the whole blob has matched.
        if (position > end) verify.finish();
      }
      pending[slot] = write(chunk);
      slot ^= 1;
    }
    if (verify && end < start && !gone) verify.finish();
    const flushed = await Promise.all(pending.map((p) => p ?? true));
    if (!gone && flushed.every(Boolean)) {
      if (!started) {
        started = true;
        onFirstWrite?.();
      }
      res.end();
      give(buffers);
      return { complete: true, started };
    }
    // A client that went away may leave a write in the socket's hands: those chunks are not reused.
    return { complete: false, started };
  } catch (error) {
    const damaged = error instanceof BlobDamagedError ? error : undefined;
    if (damaged && !started) {
      // Nothing sent yet: the caller answers with an error. The chunks were never handed to the socket.
      await Promise.all(pending.map((p) => p ?? true));
      give(buffers);
      return { complete: false, damaged, started };
    }
    // A read failed or the bytes are wrong mid-response: the length promised cannot be kept, so the
    // connection is cut and the client sees a broken transfer.
    res.destroy(error as Error);
    return { complete: false, damaged, error: damaged ? undefined : (error as Error), started };
  } finally {
    res.removeListener('close', onClose);
    await file.close();
  }
}
