import { sleepFor, SystemClock } from '../../../src/ground/Clock';

const DAY = 24 * 60 * 60 * 1000;
import { FakeClock } from 'waymark/testing';

/** Stored times are whole milliseconds: a clock that hands out fractions reads back different. */
describe('clocks hand out whole milliseconds', () => {
  it('the system clock', () => {
    const clock = new SystemClock();
    for (let i = 0; i < 1000; i++) expect(Number.isInteger(clock.now())).toBe(true);
  });

  it('a fake clock started, advanced or woken at fractions of a millisecond', async () => {
    const clock = new FakeClock(1_000.4);
    expect(clock.now()).toBe(1_000);
    await clock.advance(1.5);
    expect(clock.now()).toBe(1_002);
    await clock.advance('0.4ms');
    expect(clock.now()).toBe(1_002);

    // A jittered backoff sleeps a fraction: it wakes at the next whole millisecond.
    let wokeAt: number | undefined;
    const sleeping = clock.sleep(10.25).then(() => (wokeAt = clock.now()));
    expect(clock.nextDueAt).toBe(1_013);
    await clock.advance(10);
    expect(wokeAt).toBeUndefined();
    await clock.advance(1);
    await sleeping;
    expect(wokeAt).toBe(1_013);
    expect(Number.isInteger(clock.now())).toBe(true);
  });
});

describe('real-time waits longer than Node timers allow', () => {
  afterEach(() => jest.useRealTimers());

  it('sleepFor(25 days) waits the whole 25 days, re-arming past 2^31-1 ms', async () => {
    jest.useFakeTimers({ now: Date.UTC(2026, 0, 1) });
    let done = false;
    void sleepFor(25 * DAY).then(() => (done = true));
    await jest.advanceTimersByTimeAsync(24 * DAY);
    expect(done).toBe(false);
    expect(jest.getTimerCount()).toBe(1);
    await jest.advanceTimersByTimeAsync(DAY);
    expect(done).toBe(true);
    expect(jest.getTimerCount()).toBe(0);
  });

  it('an aborted long wait removes its timer and its listener', async () => {
    jest.useFakeTimers();
    const stop = new AbortController();
    const wait = sleepFor(40 * DAY, stop.signal);
    stop.abort(new Error('stopped'));
    await expect(wait).rejects.toThrow('stopped');
    expect(jest.getTimerCount()).toBe(0);
  });
});
