import { isRetryableError } from '../errors/RetryableError';
import { isDuration, parseDuration } from '../ground/Duration';

const MAX_CAUSE_DEPTH = 8;
const DAY_NAME = /^(mon|tue|wed|thu|fri|sat|sun)/i;
const TIME_ZONE = /\b(gmt|utc|z|[+-]\d{4})$/i;
const NON_NEGATIVE_NUMBER = /^\d+(\.\d+)?$/;

/**
 * The server's hint for the earliest retry, in milliseconds, or undefined when there is
 * none. Looked for, in order and on the error and then each of its causes:
 * 1. `RetryableError.retryAfter` (a Duration);
 * 2. the `retry-after-ms` header (milliseconds);
 * 3. the `Retry-After` header: delay-seconds, or an HTTP date relative to `nowMs` (a date
 *    in the past gives 0).
 *
 * Headers are read case-insensitively from `error.headers`, `error.responseHeaders` (the AI
 * SDK's `APICallError`) or `error.response.headers`,
 * either a plain object (values `string | number | string[]`, the first element of an
 * array counting) or anything with a `get(name)` method such as WHATWG `Headers`.
 * Malformed or negative values are ignored.
 *
 * @param nowMs - the current time as epoch milliseconds, for HTTP dates.
 */
export function readRetryAfter(error: unknown, nowMs: number): number | undefined {
  const seen = new Set<unknown>();
  let current = error;
  for (let depth = 0; depth < MAX_CAUSE_DEPTH && isObject(current); depth++) {
    if (seen.has(current)) return undefined;
    seen.add(current);
    const hint = hintOn(current, nowMs);
    if (hint !== undefined) return hint;
    current = current.cause;
  }
  return undefined;
}

/** Options of {@link retryDelay}, as resolved from `@Retry`. */
export interface RetryDelayOptions {
  /** Whether a server hint may lengthen the delay. Default true. */
  respectRetryAfter?: boolean;
  /** Upper bound of the final delay in milliseconds; none when undefined. */
  maxDelayMs?: number;
}

/**
 * The delay before the next attempt: `max(backoffMs, hintMs)` when `respectRetryAfter`
 * (the default) and a hint exists, else `backoffMs`; then capped at `maxDelayMs`.
 *
 * @example
 * ```ts
 * retryDelay(2_000, readRetryAfter(err, Date.now()), { maxDelayMs: 60_000 });
 * ```
 */
export function retryDelay(
  backoffMs: number,
  hintMs: number | undefined,
  options: RetryDelayOptions = {},
): number {
  const { respectRetryAfter = true, maxDelayMs } = options;
  const delay = respectRetryAfter && hintMs !== undefined ? Math.max(backoffMs, hintMs) : backoffMs;
  return maxDelayMs === undefined ? delay : Math.min(delay, maxDelayMs);
}

function hintOn(error: Record<string, unknown>, nowMs: number): number | undefined {
  if (isRetryableError(error) && isDuration(error.retryAfter)) {
    return parseDuration(error.retryAfter, 'retryAfter');
  }
  const response = error.response;
  const candidates = [
    error.headers,
    error.responseHeaders, // the AI SDK's APICallError
    isObject(response) ? response.headers : undefined,
  ];
  for (const headers of candidates) {
    const ms = parseNonNegative(header(headers, 'retry-after-ms'));
    if (ms !== undefined) return ms;
    const retryAfter = parseRetryAfter(header(headers, 'retry-after'), nowMs);
    if (retryAfter !== undefined) return retryAfter;
  }
  return undefined;
}

/** One header value as a trimmed string, whatever container holds it. */
function header(headers: unknown, lowerName: string): string | undefined {
  if (!isObject(headers)) return undefined;
  let value: unknown;
  if (typeof headers.get === 'function') {
    value = (headers.get as (name: string) => unknown).call(headers, lowerName);
  } else {
    const key = Object.keys(headers).find((name) => name.toLowerCase() === lowerName);
    value = key === undefined ? undefined : headers[key];
  }
  if (Array.isArray(value)) value = value[0];
  if (typeof value === 'number' && Number.isFinite(value)) return String(value);
  return typeof value === 'string' ? value.trim() : undefined;
}

function parseRetryAfter(value: string | undefined, nowMs: number): number | undefined {
  const seconds = parseNonNegative(value);
  if (seconds !== undefined) return seconds * 1000;
  if (value === undefined || !DAY_NAME.test(value)) return undefined;
  // asctime dates carry no zone; HTTP says they are GMT, Date.parse would assume local time.
  const at = Date.parse(TIME_ZONE.test(value) ? value : `${value} GMT`);
  return Number.isNaN(at) ? undefined : Math.max(0, at - nowMs);
}

function parseNonNegative(value: string | undefined): number | undefined {
  return value !== undefined && NON_NEGATIVE_NUMBER.test(value) ? Number(value) : undefined;
}

function isObject(value: unknown): value is Record<string, unknown> {
  return typeof value === 'object' && value !== null;
}
