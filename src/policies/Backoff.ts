import { ConfigurationError } from '../errors/ConfigurationError';
import { Duration, parseDuration } from '../ground/Duration';

/**
 * How the exponential delay is randomised so that many clients failing together do not
 * retry together. With `d = min(max, initial * factor^(attempt-1))`: `none` waits `d`,
 * `full` a uniform time in `[0, d]`, `equal` in `[d/2, d]`, and `decorrelated` in
 * `[initial, 3 * previous delay]`, capped at `max`.
 */
export type Jitter = 'none' | 'full' | 'equal' | 'decorrelated';

/** Exponential backoff: the delay grows by `factor` per failed attempt, up to `max`. */
export interface ExponentialBackoffOptions {
  /** Delay after the first failed attempt. Default `'1s'`. */
  initial?: Duration;
  /** Growth per attempt, at least 1. Default `2`. */
  factor?: number;
  /** Upper bound of any delay. Default `'5m'`. */
  max?: Duration;
  /** Randomisation. Default `'full'`. */
  jitter?: Jitter;
}

/** The same delay before every retry, without jitter. */
export interface FixedBackoffOptions {
  /** The delay before every retry. */
  fixed: Duration;
  // A fixed delay has no exponential settings; naming one is a compile error.
  initial?: never;
  factor?: never;
  max?: never;
  jitter?: never;
}

/**
 * Backoff as written in `@Retry({ backoff })`.
 *
 * @example
 * ```ts
 * const backoff: BackoffOptions = { initial: '1s', factor: 2, max: '1m', jitter: 'full' };
 * const steady: BackoffOptions = { fixed: '10s' };
 * ```
 */
export type BackoffOptions = ExponentialBackoffOptions | FixedBackoffOptions;

/** The defaults filled in for every option of {@link ExponentialBackoffOptions} left out. */
export const DEFAULT_BACKOFF = Object.freeze({
  initial: '1s',
  factor: 2,
  max: '5m',
  jitter: 'full',
} as const satisfies Required<ExponentialBackoffOptions>);

/**
 * Backoff with defaults filled in and durations in milliseconds, as produced by
 * {@link resolveBackoff}. A fixed backoff is `{ initialMs: d, factor: 1, maxMs: d,
 * jitter: 'none' }`.
 */
export interface ResolvedBackoff {
  readonly initialMs: number;
  readonly factor: number;
  readonly maxMs: number;
  readonly jitter: Jitter;
}

const JITTERS: readonly string[] = ['none', 'full', 'equal', 'decorrelated'];
const EXPONENTIAL_KEYS: readonly string[] = ['initial', 'factor', 'max', 'jitter'];

/**
 * Validates backoff options, fills in {@link DEFAULT_BACKOFF} and converts durations to
 * milliseconds.
 *
 * @param options - the user's options; `undefined` means all defaults.
 * @param what - prefix for error messages, e.g. `'@Retry(backoff)'`.
 * @throws {@link ConfigurationError} naming the field for a bad duration, `factor < 1`,
 * an unknown `jitter`, `initial > max`, an unknown option, or `fixed` mixed with the
 * exponential options.
 */
export function resolveBackoff(
  options: BackoffOptions | undefined,
  what = 'backoff',
): ResolvedBackoff {
  if (options === undefined) options = {};
  if (typeof options !== 'object' || options === null || Array.isArray(options)) {
    throw new ConfigurationError(
      `${what} must be an object like { initial: '1s' } or { fixed: '1s' }`,
    );
  }
  const keys = Object.keys(definedOnly(options));
  if ('fixed' in options) {
    const extra = keys.filter((key) => key !== 'fixed');
    if (extra.length > 0) {
      throw new ConfigurationError(
        `${what}.fixed cannot be combined with ${extra.map((key) => `'${key}'`).join(', ')}`,
      );
    }
    const fixedMs = parseDuration(options.fixed, `${what}.fixed`);
    return Object.freeze({ initialMs: fixedMs, factor: 1, maxMs: fixedMs, jitter: 'none' });
  }
  const unknown = keys.filter((key) => !EXPONENTIAL_KEYS.includes(key));
  if (unknown.length > 0) {
    throw new ConfigurationError(
      `${what} has unknown option ${unknown.map((key) => `'${key}'`).join(', ')}; ` +
        `expected initial, factor, max, jitter or fixed`,
    );
  }
  const { initial, factor, max, jitter } = { ...DEFAULT_BACKOFF, ...definedOnly(options) };
  const initialMs = parseDuration(initial, `${what}.initial`);
  const maxMs = parseDuration(max, `${what}.max`);
  if (typeof factor !== 'number' || !Number.isFinite(factor) || factor < 1) {
    throw new ConfigurationError(
      `${what}.factor must be a finite number >= 1; got ${String(factor)}`,
    );
  }
  if (!JITTERS.includes(jitter)) {
    throw new ConfigurationError(
      `${what}.jitter must be one of 'none', 'full', 'equal', 'decorrelated'; got '${String(jitter)}'`,
    );
  }
  if (initialMs > maxMs) {
    throw new ConfigurationError(
      `${what}.initial (${String(initial)}) must not exceed ${what.slice(what.lastIndexOf(': ') + 1).trim()}.max (${String(max)})`,
    );
  }
  return Object.freeze({ initialMs, factor, maxMs, jitter });
}

// `{ initial: undefined }` means "use the default", as if the key were absent.
function definedOnly(options: BackoffOptions): ExponentialBackoffOptions {
  return Object.fromEntries(Object.entries(options).filter(([, value]) => value !== undefined));
}

/**
 * The delay in milliseconds before the next attempt, after attempt `attempt` failed.
 *
 * With `d = min(maxMs, initialMs * factor^(attempt-1))`:
 * - `none`: exactly `d`.
 * - `full`: uniform in `[0, d]`.
 * - `equal`: uniform in `[d/2, d]`.
 * - `decorrelated` (AWS Architecture Blog, "Exponential Backoff And Jitter"):
 *   `min(maxMs, uniform(initialMs, previousMs * 3))`, with `previousMs = initialMs` for
 *   the first retry, so always in `[initialMs, maxMs]`. `factor` is not used.
 * - fixed (see {@link ResolvedBackoff}): always the fixed delay.
 *
 * Upper ends are approached but not reached, since `random()` is below 1 (except where
 * `maxMs` caps the value). The result may be fractional; callers round when they schedule.
 *
 * @param policy - from {@link resolveBackoff}.
 * @param attempt - the 1-based number of the attempt that just failed.
 * @param previousMs - the delay returned for the previous retry; only `decorrelated` uses it.
 * @param random - returns a number in `[0, 1)`; `Math.random` in production, seeded in tests.
 * @throws RangeError when `attempt` is not an integer >= 1.
 */
export function backoffDelay(
  policy: ResolvedBackoff,
  attempt: number,
  previousMs: number | undefined,
  random: () => number,
): number {
  if (!Number.isInteger(attempt) || attempt < 1) {
    throw new RangeError(`attempt must be an integer >= 1; got ${attempt}`);
  }
  const { initialMs, factor, maxMs, jitter } = policy;
  if (jitter === 'decorrelated') {
    const previous = attempt === 1 || previousMs === undefined ? initialMs : previousMs;
    const upper = Math.max(initialMs, previous * 3);
    return Math.min(maxMs, initialMs + random() * (upper - initialMs));
  }
  // 0 * Infinity is NaN once factor^(attempt-1) overflows, hence the guard.
  const grown = initialMs === 0 ? 0 : initialMs * factor ** (attempt - 1);
  const capped = Math.min(maxMs, grown);
  switch (jitter) {
    case 'none':
      return capped;
    case 'full':
      return random() * capped;
    case 'equal':
      return capped / 2 + (random() * capped) / 2;
  }
}
