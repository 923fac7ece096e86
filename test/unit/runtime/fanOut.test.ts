import { boundedAll } from '../../../src/runtime/fanOut';

describe('boundedAll (ctx.all)', () => {
  it('starts calls in order, never more than the limit at once, and resolves in call order', async () => {
    const started: number[] = [];
    let running = 0;
    let most = 0;
    const calls = Array.from({ length: 12 }, (_, i) => async () => {
      started.push(i);
      most = Math.max(most, ++running);
      await new Promise((resolve) => setTimeout(resolve, (12 - i) % 4));
      running--;
      return i * 10;
    });
    await expect(boundedAll(calls, { concurrency: 3 })).resolves.toEqual(
      Array.from({ length: 12 }, (_, i) => i * 10),
    );
    expect(started).toEqual(Array.from({ length: 12 }, (_, i) => i));
    expect(most).toBe(3);
  });

  it('rejects with the first failure and starts nothing after it', async () => {
    const started: number[] = [];
    const calls = [0, 1, 2, 3].map((i) => async () => {
      started.push(i);
      if (i === 1) throw new Error('child 1 failed');
      return i;
    });
    await expect(boundedAll(calls, { concurrency: 1 })).rejects.toThrow('child 1 failed');
    expect(started).toEqual([0, 1]);
  });

  it('refuses a concurrency that is not a positive integer, and calls that are not functions', () => {
    expect(() => boundedAll([async () => 1], { concurrency: 0 })).toThrow(
      /ctx.all\(\): concurrency must be a positive integer, got 0/,
    );
    expect(() => boundedAll([Promise.resolve(1)] as never)).toThrow(/ctx.all\(\): calls must be/);
  });
});
