// Child process of crash-recovery.test.ts: starts a large streamed write into a filesystem blob store
// and never expects to finish it (the test kills it with SIGKILL mid-write).
// Usage: node --import tsx crash-writer.ts <home> <megabytes>
import { setTimeout as sleep } from 'node:timers/promises';
import { createBlobStore } from './index.ts';

const [home, megabytes = '500'] = process.argv.slice(2);
if (!home) throw new Error('usage: crash-writer.ts <home> <megabytes>');
const MIB = 1024 * 1024;

async function* generate(): AsyncGenerator<Uint8Array> {
  for (let i = 0; i < Number(megabytes); i += 1) {
    yield Buffer.alloc(MIB, i % 251);
    // Paced (≤ ~500 MB/s) so the write is still running when the parent kills it.
    await sleep(2);
  }
}

const store = await createBlobStore({ home });
process.stdout.write('writing\n');
const info = await store.put(generate());
process.stdout.write(`finished ${info.sha256}\n`);
