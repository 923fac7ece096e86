import {
  retryTransient,
  withTransientRetry,
} from '../../../../src/store/connection/retryTransient';

const refused = (): Error =>
  Object.assign(new Error('connect ECONNREFUSED'), { code: 'ECONNREFUSED' });
const denied = (): Error =>
  Object.assign(new Error('Access denied'), { code: 'ER_ACCESS_DENIED_ERROR', errno: 1045 });

/** A piece of work that fails with each of `failures` in turn, then returns 'done'. */
function work(failures: Array<() => Error>) {
  const calls = { count: 0 };
  const run = (): Promise<string> => {
    const failure = failures[calls.count++];
    return failure ? Promise.reject(failure()) : Promise.resolve('done');
  };
  return { run, calls };
}

const gaveUp = (error: unknown, retriedMs: number | undefined) =>
  Object.assign(new Error(`gave up: ${(error as Error).message}`), { retriedMs });

describe('retrying through a database outage', () => {
  it('tries again after transient failures, and returns what the work returns', async () => {
    const { run, calls } = work([refused, refused, refused]);
    await expect(withTransientRetry(run, { timeoutMs: 10_000, giveUp: gaveUp })).resolves.toBe(
      'done',
    );
    expect(calls.count).toBe(4);
  });

  it('gives up at once on a failure no retry outlasts, saying it did not retry', async () => {
    const { run, calls } = work([denied]);
    const error = await withTransientRetry(run, { timeoutMs: 10_000, giveUp: gaveUp }).catch(
      (e: unknown) => e,
    );
    expect(error).toMatchObject({ message: 'gave up: Access denied', retriedMs: undefined });
    expect(calls.count).toBe(1);
  });

  it('gives up on an outage that outlasts the timeout, saying how long it retried', async () => {
    // Fake time: on a loaded machine one real 25 ms wait can take most of the 300 ms.
    jest.useFakeTimers();
    try {
      const { run, calls } = work(Array(1000).fill(refused));
      const started = Date.now();
      const settled = retryTransient(run, refused(), started, {
        timeoutMs: 300,
        giveUp: gaveUp,
      }).catch((e: unknown) => e);
      await jest.runAllTimersAsync();
      const error = await settled;
      expect(error).toMatchObject({ message: 'gave up: connect ECONNREFUSED' });
      // Waits of 25, 50 and 100 ms (each jittered to 50-100%) always fit in 300 ms; 200 more
      // fits only after short jitters; 400 never does.
      expect(calls.count).toBeGreaterThanOrEqual(3);
      expect(calls.count).toBeLessThanOrEqual(4);
      expect((error as { retriedMs: number }).retriedMs).toBeGreaterThanOrEqual(87);
      expect((error as { retriedMs: number }).retriedMs).toBeLessThanOrEqual(300);
    } finally {
      jest.useRealTimers();
    }
  });

  it('stops when told to between tries (a runtime killed meanwhile)', async () => {
    const { run, calls } = work([refused, refused]);
    const stop = new Error('the runtime was killed');
    const attempt = withTransientRetry(run, {
      timeoutMs: 10_000,
      giveUp: gaveUp,
      assertGoOn: () => {
        throw stop;
      },
    });
    await expect(attempt).rejects.toBe(stop);
    expect(calls.count).toBe(1);
  });
});

describe('telling of each retry', () => {
  it('calls onRetry before each wait with the failure, the wait and the count, and not for a failure it gives up on', async () => {
    const { run } = work([refused, refused, denied]);
    const told: Array<[string, number, number]> = [];
    const error = await withTransientRetry(run, {
      timeoutMs: 10_000,
      giveUp: gaveUp,
      onRetry: (failure, delayMs, attempt) =>
        told.push([(failure as Error).message, delayMs, attempt]),
    }).catch((e: unknown) => e);
    expect(error).toMatchObject({ message: 'gave up: Access denied' });
    expect(told.map(([message, , attempt]) => [message, attempt])).toEqual([
      ['connect ECONNREFUSED', 1],
      ['connect ECONNREFUSED', 2],
    ]);
    // Jittered to 50-100% of 25 ms, then of 50 ms.
    expect(told[0][1]).toBeGreaterThanOrEqual(12);
    expect(told[0][1]).toBeLessThanOrEqual(25);
    expect(told[1][1]).toBeGreaterThanOrEqual(25);
    expect(told[1][1]).toBeLessThanOrEqual(50);
  });
});
