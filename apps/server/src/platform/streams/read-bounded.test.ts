import { Readable } from 'node:stream';
import { describe, expect, it } from 'vitest';
import { readBounded } from './read-bounded.ts';

class TooLarge extends Error {}
const tooLarge = () => new TooLarge('too large');

describe('issue 13 §5: readBounded', () => {
  it('issue 13 §5: reads a stream whole up to the limit, chunks of any kind', async () => {
    const source = Readable.from([Buffer.from('ab'), new Uint8Array([99]), Buffer.from('d')]);
    expect((await readBounded(source, 4, tooLarge)).toString()).toBe('abcd');
  });

  it("issue 13 §5: past the limit the caller's error is thrown and the source is destroyed", async () => {
    const source = Readable.from([Buffer.alloc(3), Buffer.alloc(3), Buffer.alloc(3)]);
    await expect(readBounded(source, 5, tooLarge)).rejects.toBeInstanceOf(TooLarge);
    expect(source.destroyed).toBe(true);
  });

  it('issue 13 §5: an announced length over the limit is refused before a byte is read', async () => {
    let read = false;
    const source = new Readable({
      read() {
        read = true;
        this.push(null);
      },
    });
    await expect(readBounded(source, 10, tooLarge, { announced: '11' })).rejects.toBeInstanceOf(TooLarge);
    expect(read).toBe(false);
  });

  it('issue 13 §5: drain leaves the rest flowing away unbuffered, the stream not destroyed', async () => {
    const source = Readable.from([Buffer.alloc(4), Buffer.alloc(4), Buffer.alloc(4)], { objectMode: false });
    await expect(readBounded(source, 5, tooLarge, { rest: 'drain' })).rejects.toBeInstanceOf(TooLarge);
    expect(source.destroyed).toBe(false);
    await new Promise((resolve) => source.once('end', resolve));
    expect(source.readableEnded).toBe(true);
  });
});
