import { describe, expect, it } from 'vitest';
import { SerialQueue } from './serial-queue.ts';

describe('issue 13 §5: SerialQueue', () => {
  it('issue 13 §5: work under one key runs one at a time, in order; other keys run side by side', async () => {
    const queue = new SerialQueue();
    const events: string[] = [];
    let release!: () => void;
    const held = new Promise<void>((resolve) => {
      release = resolve;
    });
    const first = queue.run('a', async () => {
      events.push('a1:start');
      await held;
      events.push('a1:end');
    });
    const second = queue.run('a', async () => {
      events.push('a2');
    });
    await queue.run('b', async () => {
      events.push('b');
    });
    expect(events).toEqual(['a1:start', 'b']);
    expect(queue.busy('a')).toBe(true);
    release();
    await Promise.all([first, second]);
    expect(events).toEqual(['a1:start', 'b', 'a1:end', 'a2']);
    expect(queue.busy('a')).toBe(false);
  });

  it('issue 13 §5: a failure reaches its own caller only; the next in line runs', async () => {
    const queue = new SerialQueue();
    const failed = queue.run('k', async () => {
      throw new Error('boom');
    });
    const next = queue.run('k', async () => 'next');
    await expect(failed).rejects.toThrow('boom');
    expect(await next).toBe('next');
    expect(queue.busy('k')).toBe(false);
  });
});
