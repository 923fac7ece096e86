import { StepTimeoutError } from '../../errors/StepTimeoutError';
import type { Clock } from '../../ground/Clock';

/** How one attempt of a step body settled. */
export type Settled = { ok: true; value: unknown } | { ok: false; error: unknown };

/**
 * Runs one attempt of a step body with its own AbortSignal, aborted when the run is
 * cancelled or the attempt times out. A timed-out attempt settles as `StepTimeoutError`
 * (transient); whatever the body returns later is discarded.
 */
export async function invokeAttempt(
  body: (signal: AbortSignal) => Promise<unknown>,
  options: { step: string; timeoutMs: number | undefined; clock: Clock; cancellation: AbortSignal },
): Promise<Settled> {
  if (options.timeoutMs === undefined) {
    // No deadline of its own: the run's cancellation signal is the attempt's signal.
    try {
      return { ok: true, value: await body(options.cancellation) };
    } catch (error) {
      return { ok: false, error };
    }
  }
  const attempt = new AbortController();
  const onCancel = (): void => attempt.abort(options.cancellation.reason);
  if (options.cancellation.aborted) onCancel();
  else options.cancellation.addEventListener('abort', onCancel, { once: true });
  const timer = new AbortController();
  try {
    const work = body(attempt.signal);
    const racers: Array<Promise<unknown>> = [work];
    if (options.timeoutMs !== undefined) {
      const timeoutMs = options.timeoutMs;
      const timeout = options.clock.sleep(timeoutMs, timer.signal).then(() => {
        const error = new StepTimeoutError(options.step, timeoutMs);
        attempt.abort(error);
        throw error;
      });
      timeout.catch(() => undefined);
      racers.push(timeout);
    }
    work.catch(() => undefined);
    return { ok: true, value: await Promise.race(racers) };
  } catch (error) {
    return { ok: false, error };
  } finally {
    timer.abort();
    options.cancellation.removeEventListener('abort', onCancel);
  }
}
