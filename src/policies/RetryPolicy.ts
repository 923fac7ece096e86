import { ConfigurationError } from '../errors/ConfigurationError';
import { backoffDelay, resolveBackoff, type BackoffOptions, type ResolvedBackoff } from './Backoff';
import { parseDuration, type Duration } from '../ground/Duration';
import { classifyError, type ErrorMatcher } from './ErrorClassifier';
import { readRetryAfter, retryDelay } from './RetryAfter';

/** Options of `@Retry`. */
export interface RetryOptions {
  /** Every attempt counts, the first included; default 3. */
  maxAttempts?: number;
  /** Delay between attempts; default `{ initial: '1s', factor: 2, max: '5m', jitter: 'full' }`. */
  backoff?: BackoffOptions;
  /** Retry only errors matching one of these (classes or predicates). */
  retryOn?: ErrorMatcher[];
  /** Never retry errors matching one of these; checked first. */
  abortOn?: ErrorMatcher[];
  /** Wait at least what `Retry-After` / `retry-after-ms` asks; default true. */
  respectRetryAfter?: boolean;
  /** Upper bound of any one delay, hints included. */
  maxDelay?: Duration;
  /** When the budget is spent: throw `RetriesExhaustedError` (default) or park for a human. */
  onExhausted?: 'throw' | 'intervene';
}

/** {@link RetryOptions} with defaults applied and durations in milliseconds. */
export interface ResolvedRetryPolicy {
  readonly maxAttempts: number;
  readonly backoff: ResolvedBackoff;
  readonly retryOn: readonly ErrorMatcher[] | undefined;
  readonly abortOn: readonly ErrorMatcher[] | undefined;
  readonly respectRetryAfter: boolean;
  readonly maxDelayMs: number | undefined;
  readonly onExhausted: 'throw' | 'intervene';
}

/** What to do after a failed attempt. */
export type RetryDecision =
  | { readonly retry: true; readonly delayMs: number; readonly reason: string }
  | { readonly retry: false; readonly exhausted: boolean; readonly reason: string };

/** Default number of attempts of a `@Retry` step, the first included. */
export const DEFAULT_MAX_ATTEMPTS = 3;

/** Applies defaults and checks values; errors name `where` and the field. */
export function resolveRetryPolicy(options: RetryOptions, where: string): ResolvedRetryPolicy {
  const maxAttempts = options.maxAttempts ?? DEFAULT_MAX_ATTEMPTS;
  if (!Number.isInteger(maxAttempts) || maxAttempts < 1) {
    throw new ConfigurationError(
      `${where}: maxAttempts must be an integer ≥ 1, got ${String(maxAttempts)}`,
    );
  }
  return Object.freeze({
    maxAttempts,
    backoff: resolveBackoff(options.backoff, `${where}: backoff`),
    retryOn: options.retryOn ? Object.freeze([...options.retryOn]) : undefined,
    abortOn: options.abortOn ? Object.freeze([...options.abortOn]) : undefined,
    respectRetryAfter: options.respectRetryAfter ?? true,
    maxDelayMs:
      options.maxDelay === undefined
        ? undefined
        : parseDuration(options.maxDelay, `${where}: maxDelay`),
    onExhausted: options.onExhausted ?? 'throw',
  });
}

/**
 * Decides, after attempt `attempt` (1-based) failed with `error`, whether to try again and
 * after how long: classification first (permanent errors fail fast), then the budget, then
 * the larger of the backoff and the server's hint, capped by `maxDelay`.
 */
export function decideRetry(
  policy: ResolvedRetryPolicy,
  error: unknown,
  attempt: number,
  previousDelayMs: number | undefined,
  nowMs: number,
  random: () => number,
): RetryDecision {
  const classification = classifyError(error, { retryOn: policy.retryOn, abortOn: policy.abortOn });
  if (!classification.retry)
    return { retry: false, exhausted: false, reason: classification.reason };
  if (attempt >= policy.maxAttempts) {
    return {
      retry: false,
      exhausted: true,
      reason: `${attempt} of ${policy.maxAttempts} attempts used`,
    };
  }
  const backoffMs = backoffDelay(policy.backoff, attempt, previousDelayMs, random);
  const hintMs = policy.respectRetryAfter ? readRetryAfter(error, nowMs) : undefined;
  const delayMs = Math.round(
    retryDelay(backoffMs, hintMs, {
      respectRetryAfter: policy.respectRetryAfter,
      maxDelayMs: policy.maxDelayMs,
    }),
  );
  return { retry: true, delayMs, reason: classification.reason };
}
