/**
 * Where a runtime reads the time and waits. Tests swap in a fake clock whose `advance()`
 * fires timers at once; production uses {@link SystemClock}.
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

/** The real clock. */
export class SystemClock implements Clock {
  /** `Date.now()`: whole milliseconds. */
  now(): number {
    return Date.now();
  }

  sleep(ms: number, signal?: AbortSignal): Promise<void> {
    return new Promise((resolve, reject) => {
      if (signal?.aborted) return reject(signal.reason as Error);
      const onAbort = (): void => {
        clearTimeout(timer);
        reject(signal?.reason as Error);
      };
      const timer = setTimeout(() => {
        signal?.removeEventListener('abort', onAbort);
        resolve();
      }, ms);
      signal?.addEventListener('abort', onAbort, { once: true });
    });
  }
}
