import { parseDuration, type Duration } from '../ground/Duration';
import type { Clock } from '../ground/Clock';

interface Timer {
  readonly dueAt: number;
  readonly order: number;
  readonly resolve: () => void;
}

/**
 * A clock that only moves when told: `advance('3d')` fires every timer, backoff and
 * timeout due within those three days at once, in order.
 *
 * Like the system clock, it hands out whole milliseconds: a fractional start or
 * `advance()` is rounded to the nearest millisecond, and a sleep of a fraction of a
 * millisecond (a jittered backoff) is due at the next whole one, never before.
 *
 * @example
 * ```ts
 * const runtime = await createTestRuntime({ clock: 'fake' });
 * const done = runtime.run(Agent, 'fetch', []);   // a 429 with Retry-After: 2 is retried…
 * await runtime.clock.advance('2s');             // …as soon as the clock reaches it
 * await done;
 * ```
 */
export class FakeClock implements Clock {
  private current: number;
  private readonly timers = new Set<Timer>();
  private order = 0;
  private readonly sleepers = new Set<() => void>();

  constructor(start: Date | number = Date.UTC(2026, 0, 1)) {
    this.current = Math.round(typeof start === 'number' ? start : start.getTime());
  }

  now(): number {
    return this.current;
  }

  sleep(ms: number, signal?: AbortSignal): Promise<void> {
    return new Promise((resolve, reject) => {
      if (signal?.aborted) return reject(signal.reason as Error);
      if (ms <= 0) return resolve();
      const timer: Timer = {
        dueAt: this.current + Math.ceil(ms),
        order: this.order++,
        resolve: () => {
          signal?.removeEventListener('abort', onAbort);
          resolve();
        },
      };
      const onAbort = (): void => {
        this.timers.delete(timer);
        reject(signal?.reason as Error);
      };
      signal?.addEventListener('abort', onAbort, { once: true });
      this.timers.add(timer);
      for (const wake of this.sleepers) wake();
      this.sleepers.clear();
    });
  }

  /** Timers waiting to fire. */
  get pendingTimers(): number {
    return this.timers.size;
  }

  /** When the earliest timer is due, if any. */
  get nextDueAt(): number | undefined {
    return this.next()?.dueAt;
  }

  /** Resolves once some code is sleeping on this clock (a backoff, a timeout, a timer). */
  async untilSleeping(): Promise<void> {
    while (this.timers.size === 0) {
      await new Promise<void>((resolve) => this.sleepers.add(resolve));
    }
  }

  /**
   * Moves time forward by `duration` (rounded to whole milliseconds), firing due timers one
   * at a time in due order and letting the code they wake run (including its database I/O)
   * before the next.
   */
  async advance(duration: Duration): Promise<void> {
    const target = this.current + Math.round(parseDuration(duration, 'FakeClock.advance()'));
    for (let timer = this.next(); timer && timer.dueAt <= target; timer = this.next()) {
      this.current = Math.max(this.current, timer.dueAt);
      this.timers.delete(timer);
      timer.resolve();
      await settle();
    }
    this.current = target;
    await settle();
  }

  /**
   * Drives time until `work` settles: whenever the code under test sleeps on this clock,
   * jumps to the next timer and fires it. Returns (or throws) what `work` does.
   */
  async drive<T>(work: Promise<T>): Promise<T> {
    let settled = false;
    const done = work.then(
      () => (settled = true),
      () => (settled = true),
    );
    while (!settled) {
      if (this.timers.size > 0) await this.runNext();
      else await Promise.race([done, this.untilSleeping()]);
    }
    return work;
  }

  /** Moves time to the next timer and fires it; false when none is pending. */
  async runNext(): Promise<boolean> {
    const timer = this.next();
    if (!timer) return false;
    await this.advance(Math.max(0, timer.dueAt - this.current));
    return true;
  }

  private next(): Timer | undefined {
    let earliest: Timer | undefined;
    for (const timer of this.timers) {
      if (
        !earliest ||
        timer.dueAt < earliest.dueAt ||
        (timer.dueAt === earliest.dueAt && timer.order < earliest.order)
      ) {
        earliest = timer;
      }
    }
    return earliest;
  }
}

/** Lets woken code run: a few macrotask turns, enough for a database round trip to start and end. */
async function settle(): Promise<void> {
  for (let i = 0; i < 5; i++) await new Promise((resolve) => setImmediate(resolve));
}
