import { StepTimeoutError } from '../../errors/StepTimeoutError';
import type { Clock } from '../../ground/Clock';

/** How one attempt of a step body settled. */
export type Settled = { ok: true; value: unknown } | { ok: false; error: unknown };

/**
 * Runs one attempt of a step body with its own AbortSignal, aborted when the run is
 * cancelled or the attempt times out. A timed-out attempt settles as `StepTimeoutError`
 * (transient); whatever the body returns later is discarded. The promise holds what
 * `then` makes of the settlement: the caller's next step is taken in the same callback,
 * since each promise is a call of every async hook on every step.
 */
export function invokeAttempt<T>(
  body: (signal: AbortSignal) => Promise<unknown>,
  options: { step: string; timeoutMs: number | undefined; clock: Clock; cancellation: AbortSignal },
  then: (settled: Settled) => T,
): Promise<T> {
  if (options.timeoutMs !== undefined) {
    return withDeadline(body, options, options.timeoutMs).then(then);
  }
  // No deadline of its own: the run's cancellation signal is the attempt's signal. No async
  // frame either: this is every plain step's path.
  let work: Promise<unknown>;
  try {
    work = Promise.resolve(body(options.cancellation));
  } catch (error) {
    return Promise.resolve({ ok: false as const, error }).then(then);
  }
  return work.then(
    (value) => then({ ok: true, value }),
    (error: unknown) => then({ ok: false, error }),
  );
}

/** An attempt that times out after `timeoutMs`, or ends early when the run is cancelled. */
async function withDeadline(
  body: (signal: AbortSignal) => Promise<unknown>,
  options: { step: string; clock: Clock; cancellation: AbortSignal },
  timeoutMs: number,
): Promise<Settled> {
  const attempt = new AbortController();
  const onCancel = (): void => attempt.abort(options.cancellation.reason);
  if (options.cancellation.aborted) onCancel();
  else options.cancellation.addEventListener('abort', onCancel, { once: true });
  const timer = new AbortController();
  try {
    const work = body(attempt.signal);
    const timeout = options.clock.sleep(timeoutMs, timer.signal).then(() => {
      const error = new StepTimeoutError(options.step, timeoutMs);
      attempt.abort(error);
      throw error;
    });
    timeout.catch(() => undefined);
    work.catch(() => undefined);
    return { ok: true, value: await Promise.race([work, timeout]) };
  } catch (error) {
    return { ok: false, error };
  } finally {
    timer.abort();
    options.cancellation.removeEventListener('abort', onCancel);
  }
}
