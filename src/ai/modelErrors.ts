import {
  classifyError,
  isTransientError,
  TRANSIENT_HTTP_STATUSES,
  type Classification,
} from '../policies/ErrorClassifier';
import {
  resolveRetryPolicy,
  type ResolvedRetryPolicy,
  type RetryOptions,
} from '../policies/RetryPolicy';

/** undici's codes for a connection that dropped while a response was being read. */
const DROPPED_CONNECTION_CODES = ['UND_ERR_SOCKET', 'UND_ERR_CLOSED', 'ECONNRESET'];
const MAX_CAUSE_DEPTH = 8;

/**
 * Whether a failed model call is worth another attempt, reading the AI SDK's errors: an
 * `APICallError` with an error status is retried for 408, 425, 429 and 5xx and fails at once
 * for any other (400, 401, 404, 422, …) whatever its `isRetryable` says; one without an error
 * status (no answer, or a 200 whose body was cut) is retried when the connection was reset
 * or dropped, else follows `isRetryable`; a `RetryError` (the SDK's own retries, when left
 * on) is judged by its last error; anything else goes to waymark's built-in classifier.
 * Usable as a matcher: `retryOn: [isRetryableModelError]`.
 */
export function isRetryableModelError(error: unknown): boolean {
  if (!isObject(error)) return isTransientError(error);
  if (error.name === 'AI_RetryError' && 'lastError' in error) {
    return isRetryableModelError(error.lastError);
  }
  const status = error.statusCode;
  // A 200 whose body was cut ("Failed to process successful response") is judged by its cause.
  if (Number.isInteger(status) && (status as number) >= 400) {
    return TRANSIENT_HTTP_STATUSES.includes(status as number) || (status as number) >= 500;
  }
  if (droppedConnection(error)) return true;
  if (typeof error.isRetryable === 'boolean' && error.name === 'AI_APICallError') {
    return error.isRetryable || isTransientError(error);
  }
  return isTransientError(error) || droppedConnection(error);
}

/**
 * The classification a model call's failure gets (for logs and tests): the decision of
 * {@link isRetryableModelError} with its reason.
 *
 * @example
 * ```ts
 * classifyModelError(apiCallError429); // { retry: true, reason: 'matched retryOn: isRetryableModelError' }
 * ```
 */
export function classifyModelError(error: unknown): Classification {
  return classifyError(error, { retryOn: [isRetryableModelError] });
}

/** Retries of a model call unless options say otherwise: 5 attempts, 1 s doubling to 1 min. */
export const DEFAULT_MODEL_RETRY: RetryOptions = Object.freeze<RetryOptions>({
  maxAttempts: 5,
  backoff: { initial: '1s', factor: 2, max: '1m', jitter: 'full' },
});

/** `options` over {@link DEFAULT_MODEL_RETRY}, classified by {@link isRetryableModelError}. */
export function modelRetryPolicy(
  options: RetryOptions | undefined,
  where: string,
): ResolvedRetryPolicy {
  return resolveRetryPolicy(
    { ...DEFAULT_MODEL_RETRY, retryOn: [isRetryableModelError], ...options },
    where,
  );
}

function droppedConnection(error: Record<string, unknown>): boolean {
  const seen = new Set<unknown>();
  let current: unknown = error;
  for (let depth = 0; depth < MAX_CAUSE_DEPTH && isObject(current); depth++) {
    if (seen.has(current)) return false;
    seen.add(current);
    if (typeof current.code === 'string' && DROPPED_CONNECTION_CODES.includes(current.code)) {
      return true;
    }
    if (current instanceof TypeError && current.message === 'terminated') return true;
    current = current.cause;
  }
  return false;
}

function isObject(value: unknown): value is Record<string, unknown> {
  return typeof value === 'object' && value !== null;
}
