import { describe, expect, it } from 'vitest';
import { createFairShare } from './fair-share.ts';

const tick = () => new Promise((resolve) => setImmediate(resolve));

describe('fair share of the request thread', () => {
  it('runs at most `slots` calls at once, the others in arrival order', async () => {
    const share = createFairShare(2);
    const started: number[] = [];
    const finish: Array<() => void> = [];
    const calls = [0, 1, 2, 3, 4].map((n) =>
      share.run(async () => {
        started.push(n);
        await new Promise<void>((resolve) => finish.push(resolve));
        return n;
      }),
    );
    await tick();
    expect(started).toEqual([0, 1]);
    expect(share.load()).toEqual({ running: 2, waiting: 3 });
    finish.shift()!();
    await tick();
    await tick();
    expect(started).toEqual([0, 1, 2]);
    while (finish.length > 0 || started.length < 5) {
      finish.shift()?.();
      await tick();
      await tick();
    }
    expect(await Promise.all(calls)).toEqual([0, 1, 2, 3, 4]);
    expect(share.load()).toEqual({ running: 0, waiting: 0 });
  });

  it('hands a slot over in a later turn of the loop, after I/O that was waiting', async () => {
    const share = createFairShare(1);
    const order: string[] = [];
    const first = share.run(() => {
      order.push('first');
      return Promise.resolve();
    });
    const second = share.run(() => {
      order.push('second');
      return Promise.resolve();
    });
    // Queued while the first runs: runs before the second, which waits for a later turn.
    setImmediate(() => order.push('other work'));
    await Promise.all([first, second]);
    expect(order).toEqual(['first', 'other work', 'second']);
  });

  it('frees the slot when the work fails', async () => {
    const share = createFairShare(1);
    await expect(share.run(() => Promise.reject(new Error('boom')))).rejects.toThrow('boom');
    expect(share.load()).toEqual({ running: 0, waiting: 0 });
    await expect(share.run(() => Promise.resolve('next'))).resolves.toBe('next');
  });
});
