import type { ErrorClass } from '../model/ErrorClass';
import { isNonRetryableError } from '../errors/NonRetryableError';
import { isRetryableError } from '../errors/RetryableError';
import { isStepTimeoutError } from '../errors/StepTimeoutError';

/**
 * Matches an error in `retryOn` / `abortOn`: an error class (matched with `instanceof`)
 * or a predicate. A function is taken as a class when it is `Error` or its prototype is
 * an `Error`; anything else is called as a predicate.
 *
 * @example
 * ```ts
 * const notFound = (e: unknown) => (e as NodeJS.ErrnoException).code === 'ENOTFOUND';
 * const matchers: ErrorMatcher[] = [RateLimitError, notFound];
 * ```
 */
export type ErrorMatcher = ErrorClass | ((error: unknown) => boolean);

/** An error class, matched with `instanceof` (never constructed, so any parameters fit). */

/** The `retryOn` and `abortOn` lists of `@Retry`. */
export interface ClassificationRules {
  /** When given (even empty), only matching errors are retried. */
  retryOn?: readonly ErrorMatcher[];
  /** Matching errors fail at once, before any other rule. */
  abortOn?: readonly ErrorMatcher[];
}

/** The decision for one failed attempt. */
export interface Classification {
  /** Whether another attempt may be made (attempts left permitting). */
  retry: boolean;
  /** Why, for logs and the step history, e.g. `'HTTP 503 is transient'`. */
  reason: string;
}

/**
 * Network error codes that the built-in classifier retries, on the error or anywhere on its
 * `cause` chain. `ENOTFOUND` is deliberately absent: it means the host name does not exist
 * (NXDOMAIN), usually a configuration mistake; a temporary DNS failure is `EAI_AGAIN`.
 * Add it with `retryOn: [isTransientError, (e) => e?.code === 'ENOTFOUND']` if wanted.
 */
export const TRANSIENT_NETWORK_CODES: readonly string[] = Object.freeze([
  'ECONNRESET',
  'ETIMEDOUT',
  'ECONNREFUSED',
  'EPIPE',
  'EAI_AGAIN',
]);

/**
 * Database error codes that the built-in classifier retries: the database rolled the
 * transaction back because of another one (MySQL/MariaDB deadlock and lock wait timeout,
 * PostgreSQL serialization failure and deadlock), so running the step again is what the
 * database asks for. In a `transactional` step nothing of the attempt was committed.
 */
export const TRANSIENT_DATABASE_CODES: readonly string[] = Object.freeze([
  'ER_LOCK_DEADLOCK',
  'ER_LOCK_WAIT_TIMEOUT',
  '40001',
  '40P01',
]);

/** HTTP statuses that the built-in classifier retries. */
export const TRANSIENT_HTTP_STATUSES: readonly number[] = Object.freeze([
  408, 425, 429, 500, 502, 503, 504,
]);

const MAX_CAUSE_DEPTH = 8;

/**
 * Decides whether a failed attempt is retried. In order:
 * 1. an `abortOn` match → no;
 * 2. a `NonRetryableError` → no;
 * 3. `retryOn` given → yes exactly when it matches (a `RetryableError` or timeout that
 *    does not match is not retried);
 * 4. otherwise the built-in classifier, {@link isTransientError}.
 *
 * A predicate that throws is a bug in the predicate; its error propagates.
 *
 * @example
 * ```ts
 * classifyError(err, { retryOn: [RateLimitError], abortOn: [ValidationError] });
 * // → { retry: true, reason: 'matched retryOn: RateLimitError' }
 * ```
 */
export function classifyError(error: unknown, rules: ClassificationRules = {}): Classification {
  const aborted = findMatch(error, rules.abortOn);
  if (aborted !== undefined) return { retry: false, reason: `matched abortOn${aborted}` };
  if (isNonRetryableError(error)) {
    return { retry: false, reason: 'NonRetryableError is never retried' };
  }
  if (rules.retryOn !== undefined) {
    const matched = findMatch(error, rules.retryOn);
    return matched === undefined
      ? { retry: false, reason: 'did not match retryOn' }
      : { retry: true, reason: `matched retryOn${matched}` };
  }
  const transient = transientReason(error);
  if (transient !== undefined) return { retry: true, reason: transient };
  return { retry: false, reason: permanentReason(error) };
}

/**
 * The built-in classifier: true for a `RetryableError`, a `StepTimeoutError`, a network
 * error (`ECONNRESET`, `ETIMEDOUT`, `ECONNREFUSED`, `EPIPE`, `EAI_AGAIN`) or a database
 * conflict (`ER_LOCK_DEADLOCK`, `ER_LOCK_WAIT_TIMEOUT`, `40001`, `40P01`) on the error or its
 * causes, undici's `TypeError('fetch failed')` (unless its cause says the host does not
 * exist), and an HTTP status 408, 425, 429, 500, 502, 503 or 504 on `status`, `statusCode` or
 * `response.status`. Usable as a matcher in `retryOn`.
 */
export function isTransientError(error: unknown): boolean {
  return transientReason(error) !== undefined;
}

/** True when `matcher` is an error class rather than a predicate. */
function isErrorClass(matcher: ErrorMatcher): matcher is ErrorClass {
  return matcher === Error || (matcher.prototype as unknown) instanceof Error;
}

/** Reason suffix (`': Name'`, `''` if anonymous) of the first matching matcher, or undefined. */
function findMatch(error: unknown, matchers: readonly ErrorMatcher[] = []): string | undefined {
  for (const matcher of matchers) {
    if (isErrorClass(matcher)) {
      if (error instanceof matcher) return `: ${matcher.name}`;
    } else if (matcher(error)) {
      return matcher.name === '' ? '' : `: ${matcher.name}`;
    }
  }
  return undefined;
}

function transientReason(error: unknown): string | undefined {
  if (isRetryableError(error)) return 'RetryableError is retried';
  if (isStepTimeoutError(error)) return 'step timeouts are transient';
  const code = findCode(error, (found) => TRANSIENT_NETWORK_CODES.includes(found));
  if (code !== undefined) return `${code} is transient`;
  const conflict = findCode(error, (found) => TRANSIENT_DATABASE_CODES.includes(found));
  if (conflict !== undefined)
    return `${conflict} (a conflict the database rolled back) is transient`;
  if (isFetchFailed(error)) {
    return findCode(error, (found) => found === 'ENOTFOUND') === undefined
      ? 'fetch failed is transient'
      : undefined;
  }
  const status = httpStatus(error);
  if (status !== undefined && TRANSIENT_HTTP_STATUSES.includes(status)) {
    return `HTTP ${status} is transient`;
  }
  return undefined;
}

function permanentReason(error: unknown): string {
  const status = httpStatus(error);
  if (status !== undefined) return `HTTP ${status} is not transient`;
  const code = findCode(error, () => true);
  if (code !== undefined) return `${code} is not transient`;
  return `${describeKind(error)} is not transient`;
}

function describeKind(error: unknown): string {
  if (error === null) return 'null';
  if (!(error instanceof Error)) return typeof error;
  // Subclasses that do not set `name` still say "Error"; their class name says more.
  return error.name === 'Error' && error.constructor.name !== ''
    ? error.constructor.name
    : error.name;
}

function isFetchFailed(error: unknown): boolean {
  return error instanceof TypeError && error.message === 'fetch failed';
}

/** The first string `code` on the error or its cause chain that satisfies `accept`. */
function findCode(error: unknown, accept: (code: string) => boolean): string | undefined {
  const seen = new Set<unknown>();
  let current = error;
  for (let depth = 0; depth < MAX_CAUSE_DEPTH && isObject(current); depth++) {
    if (seen.has(current)) return undefined;
    seen.add(current);
    const code = current.code;
    if (typeof code === 'string' && accept(code)) return code;
    current = current.cause;
  }
  return undefined;
}

/** The first integer status found on `status`, `statusCode` or `response.status`. */
function httpStatus(error: unknown): number | undefined {
  if (!isObject(error)) return undefined;
  const response = error.response;
  const candidates = [
    error.status,
    error.statusCode,
    isObject(response) ? response.status : undefined,
  ];
  return candidates.find((value): value is number => Number.isInteger(value));
}

function isObject(value: unknown): value is Record<string, unknown> {
  return typeof value === 'object' && value !== null;
}
