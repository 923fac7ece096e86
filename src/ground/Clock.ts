/**
 * Where a runtime reads the time and waits. Tests swap in a fake clock whose `advance()`
 * fires timers at once; production uses the system clock.
 */
export interface Clock {
  /**
   * Milliseconds since the epoch, a whole number: times are stored to the millisecond, and
   * a fraction would read back different from what a workflow saw (`ctx.now()`).
   */
  now(): number;
  /** Resolves after `ms`, or rejects with the signal's reason when it aborts first. */
  sleep(ms: number, signal?: AbortSignal): Promise<void>;
}

/** The longest delay Node's timers take; a longer one fires at once (and warns). */
export const MAX_TIMER_MS = 2 ** 31 - 1;

/**
 * The real clock. Every wait of the runtime goes through it: delays longer than Node's
 * timers allow (~24.8 days) are waited in slices, and an abort removes its listener.
 */
export class SystemClock implements Clock {
  /** `Date.now()`: whole milliseconds. */
  now(): number {
    return Date.now();
  }

  sleep(ms: number, signal?: AbortSignal): Promise<void> {
    return sleepFor(ms, signal);
  }
}

/** The clock of real time, for waits that are about other processes, not workflow time. */
export const realClock: Clock = new SystemClock();

/** Waits `ms` of real time (any length), or rejects with `signal`'s reason when it aborts. */
export function sleepFor(ms: number, signal?: AbortSignal): Promise<void> {
  return new Promise((resolve, reject) => {
    if (signal?.aborted) return reject(signal.reason as Error);
    const dueAt = Date.now() + Math.max(0, ms);
    let timer: NodeJS.Timeout;
    const onAbort = (): void => {
      clearTimeout(timer);
      reject(signal?.reason as Error);
    };
    const arm = (): void => {
      const remaining = dueAt - Date.now();
      if (remaining <= 0) {
        signal?.removeEventListener('abort', onAbort);
        resolve();
        return;
      }
      timer = setTimeout(arm, Math.min(remaining, MAX_TIMER_MS));
    };
    signal?.addEventListener('abort', onAbort, { once: true });
    arm();
  });
}

/**
 * Sleeps `ms` on `clock`, or rejects with the reason of whichever of `signals` aborts first.
 * Its listeners are removed when it ends, however it ends.
 */
export async function sleepUnless(
  clock: Clock,
  ms: number,
  ...signals: AbortSignal[]
): Promise<void> {
  const any = new AbortController();
  const listeners = signals.map((signal) => {
    const onAbort = (): void => any.abort(signal.reason);
    if (signal.aborted) onAbort();
    else signal.addEventListener('abort', onAbort, { once: true });
    return () => signal.removeEventListener('abort', onAbort);
  });
  try {
    await clock.sleep(ms, any.signal);
  } finally {
    for (const remove of listeners) remove();
  }
}
