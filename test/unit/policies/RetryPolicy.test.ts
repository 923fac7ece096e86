import {
  ConfigurationError,
  DEFAULT_MAX_ATTEMPTS,
  NonRetryableError,
  RetryableError,
  type RetryOptions,
} from 'waymark';
import {
  decideRetry,
  resolveRetryPolicy,
  type ResolvedRetryPolicy,
} from '../../../src/policies/RetryPolicy';
import { mulberry32 } from '../../support/SeededRandom';

const WHERE = '@Retry on Quotes.fetch';
const NOW = Date.UTC(2026, 0, 1);

/** An HTTP failure as clients report it: a status, maybe headers. */
class HttpError extends Error {
  constructor(
    readonly status: number,
    readonly headers: Record<string, string> = {},
  ) {
    super(`HTTP ${status}`);
    this.name = 'HttpError';
  }
}

class ValidationError extends Error {}

const policy = (options: RetryOptions = {}): ResolvedRetryPolicy =>
  resolveRetryPolicy(options, WHERE);

/** A `random` that always returns `value`. */
const fixed = (value: number) => () => value;

/** The delays decided after attempts 1..n-1 of a step that keeps failing with `error`. */
function delays(resolved: ResolvedRetryPolicy, error: unknown, random: () => number): number[] {
  const result: number[] = [];
  let previous: number | undefined;
  for (let attempt = 1; ; attempt++) {
    const decision = decideRetry(resolved, error, attempt, previous, NOW, random);
    if (!decision.retry) return result;
    result.push(decision.delayMs);
    previous = decision.delayMs;
  }
}

describe('resolveRetryPolicy', () => {
  it('defaults to 3 attempts, a 1s ×2 up-to-5m full-jitter backoff, Retry-After respected, and throwing when exhausted', () => {
    const resolved = policy();
    expect(DEFAULT_MAX_ATTEMPTS).toBe(3);
    expect(resolved).toEqual({
      maxAttempts: 3,
      backoff: { initialMs: 1_000, factor: 2, maxMs: 300_000, jitter: 'full' },
      retryOn: undefined,
      abortOn: undefined,
      respectRetryAfter: true,
      maxDelayMs: undefined,
      onExhausted: 'throw',
    });
    expect(Object.isFrozen(resolved)).toBe(true);
    expect(Object.isFrozen(resolved.backoff)).toBe(true);
  });

  it('keeps given values, converts durations to milliseconds, and freezes a copy of the matcher lists', () => {
    const retryOn = [HttpError];
    const isTeapot = (e: unknown): boolean => (e as HttpError).status === 418;
    const resolved = policy({
      maxAttempts: 5,
      backoff: { fixed: '250ms' },
      retryOn,
      abortOn: [isTeapot],
      respectRetryAfter: false,
      maxDelay: '2m',
      onExhausted: 'intervene',
    });
    expect(resolved).toEqual({
      maxAttempts: 5,
      backoff: { initialMs: 250, factor: 1, maxMs: 250, jitter: 'none' },
      retryOn: [HttpError],
      abortOn: [isTeapot],
      respectRetryAfter: false,
      maxDelayMs: 120_000,
      onExhausted: 'intervene',
    });
    expect(resolved.retryOn).not.toBe(retryOn);
    expect(Object.isFrozen(resolved.retryOn)).toBe(true);
    retryOn.push(ValidationError as never);
    expect(resolved.retryOn).toEqual([HttpError]);
  });

  it.each([0, -1, 1.5, Number.NaN, Infinity])(
    'refuses maxAttempts %p, naming where it was given',
    (maxAttempts) => {
      expect(() => policy({ maxAttempts })).toThrow(
        new ConfigurationError(
          `${WHERE}: maxAttempts must be an integer ≥ 1, got ${String(maxAttempts)}`,
        ),
      );
    },
  );

  it('refuses a bad backoff or maxDelay with a message naming where and the field', () => {
    expect(() => policy({ backoff: { factor: 0.5 } })).toThrow(ConfigurationError);
    expect(() => policy({ backoff: { factor: 0.5 } })).toThrow(`${WHERE}: backoff.factor`);
    expect(() => policy({ maxDelay: '3 days' as never })).toThrow(ConfigurationError);
    expect(() => policy({ maxDelay: '3 days' as never })).toThrow(`${WHERE}: maxDelay`);
  });
});

describe('decideRetry', () => {
  it.each<[string, unknown, RetryOptions]>([
    ['an HTTP 400', new HttpError(400), {}],
    ['an HTTP 404', new HttpError(404), {}],
    ['a TypeError', new TypeError('x is undefined'), {}],
    [
      'a NonRetryableError caused by a 503',
      new NonRetryableError('card blocked', { cause: new HttpError(503) }),
      {},
    ],
    ['a 503 that matches abortOn', new HttpError(503), { abortOn: [HttpError] }],
    ['a 503 that does not match retryOn', new HttpError(503), { retryOn: [ValidationError] }],
  ])('%s fails fast after the first attempt, which is not exhaustion', (_, error, options) => {
    const decision = decideRetry(
      policy({ maxAttempts: 5, ...options }),
      error,
      1,
      undefined,
      NOW,
      fixed(0.5),
    );
    expect(decision).toMatchObject({ retry: false, exhausted: false });
  });

  it('says why a permanent error is not retried', () => {
    expect(decideRetry(policy(), new HttpError(422), 1, undefined, NOW, fixed(0))).toEqual({
      retry: false,
      exhausted: false,
      reason: 'HTTP 422 is not transient',
    });
    const aborted = decideRetry(
      policy({ abortOn: [ValidationError] }),
      new ValidationError('bad sku'),
      1,
      undefined,
      NOW,
      fixed(0),
    );
    expect(aborted).toEqual({
      retry: false,
      exhausted: false,
      reason: 'matched abortOn: ValidationError',
    });
  });

  it('a permanent error on the last allowed attempt is reported as that error, not as exhaustion', () => {
    const decision = decideRetry(policy(), new HttpError(400), 3, 1_000, NOW, fixed(0.5));
    expect(decision).toMatchObject({ retry: false, exhausted: false });
  });

  it('retries a transient error until the last allowed attempt, which is exhausted', () => {
    const resolved = policy({ maxAttempts: 3, backoff: { fixed: '1s' } });
    const error = new HttpError(503);
    const after = (attempt: number) => decideRetry(resolved, error, attempt, 1_000, NOW, fixed(0));
    expect(after(1)).toEqual({ retry: true, delayMs: 1_000, reason: 'HTTP 503 is transient' });
    expect(after(2)).toEqual({ retry: true, delayMs: 1_000, reason: 'HTTP 503 is transient' });
    expect(after(3)).toEqual({ retry: false, exhausted: true, reason: '3 of 3 attempts used' });
    expect(after(4)).toEqual({ retry: false, exhausted: true, reason: '4 of 3 attempts used' });
  });

  it('maxAttempts: 1 never retries: the first transient failure is exhaustion', () => {
    const decision = decideRetry(
      policy({ maxAttempts: 1 }),
      new HttpError(503),
      1,
      undefined,
      NOW,
      fixed(0),
    );
    expect(decision).toEqual({ retry: false, exhausted: true, reason: '1 of 1 attempts used' });
  });

  it('delays grow by the factor up to max without jitter', () => {
    const resolved = policy({
      maxAttempts: 7,
      backoff: { initial: '100ms', factor: 2, max: '1s', jitter: 'none' },
    });
    expect(delays(resolved, new HttpError(503), fixed(0.5))).toEqual([
      100, 200, 400, 800, 1_000, 1_000,
    ]);
  });

  it('full jitter scales each exponential delay by random(), rounded to whole milliseconds', () => {
    const resolved = policy({ maxAttempts: 5 });
    expect(delays(resolved, new HttpError(503), fixed(0.5))).toEqual([500, 1_000, 2_000, 4_000]);
    expect(delays(resolved, new HttpError(503), fixed(0.33333))).toEqual([333, 667, 1_333, 2_667]);
    expect(delays(resolved, new HttpError(503), fixed(0))).toEqual([0, 0, 0, 0]);
  });

  it('a seeded random gives the same jittered delays every time, each within its ceiling', () => {
    const resolved = policy({ maxAttempts: 8, backoff: { initial: '100ms', max: '5s' } });
    const first = delays(resolved, new HttpError(503), mulberry32(7));
    expect(delays(resolved, new HttpError(503), mulberry32(7))).toEqual(first);
    expect(first).toHaveLength(7);
    first.forEach((delay, index) => {
      expect(delay).toBeGreaterThanOrEqual(0);
      expect(delay).toBeLessThanOrEqual(Math.min(5_000, 100 * 2 ** index));
      expect(Number.isInteger(delay)).toBe(true);
    });
  });

  it('equal jitter keeps at least half of each exponential delay', () => {
    const resolved = policy({ maxAttempts: 4, backoff: { initial: '1s', jitter: 'equal' } });
    expect(delays(resolved, new HttpError(503), fixed(0))).toEqual([500, 1_000, 2_000]);
    expect(delays(resolved, new HttpError(503), fixed(0.5))).toEqual([750, 1_500, 3_000]);
  });

  it('decorrelated jitter draws from the initial delay up to three times the previous one', () => {
    const resolved = policy({
      maxAttempts: 5,
      backoff: { initial: '100ms', max: '1s', jitter: 'decorrelated' },
    });
    // 100 + 0.5 × (3 × previous − 100), the first from previous = initial, capped at 1 s.
    expect(delays(resolved, new HttpError(503), fixed(0.5))).toEqual([200, 350, 575, 913]);
  });

  it('a fixed backoff waits the same delay before every retry, whatever random() says', () => {
    const resolved = policy({ maxAttempts: 4, backoff: { fixed: '300ms' } });
    expect(delays(resolved, new HttpError(503), fixed(0.9))).toEqual([300, 300, 300]);
  });

  it.each<[string, unknown, number]>([
    ['Retry-After in seconds', new HttpError(429, { 'Retry-After': '5' }), 5_000],
    [
      'Retry-After as an HTTP date',
      new HttpError(503, { 'retry-after': new Date(NOW + 90_000).toUTCString() }),
      90_000,
    ],
    ['retry-after-ms', new HttpError(429, { 'retry-after-ms': '2500' }), 2_500],
    [
      'Retry-After on response.headers as Headers',
      Object.assign(new Error('rate limited'), {
        response: { status: 429, headers: new Headers({ 'Retry-After': '7' }) },
      }),
      7_000,
    ],
    ['RetryableError.retryAfter', new RetryableError('busy', { retryAfter: '3s' }), 3_000],
  ])('a server hint (%s) larger than the backoff wins', (_, error, expected) => {
    const decision = decideRetry(
      policy({ backoff: { fixed: '1s' } }),
      error,
      1,
      undefined,
      NOW,
      fixed(0.5),
    );
    expect(decision).toMatchObject({ retry: true, delayMs: expected });
  });

  it('a hint smaller than the backoff does not shorten it', () => {
    const error = new HttpError(429, { 'Retry-After': '1' });
    const decision = decideRetry(
      policy({ backoff: { fixed: '4s' } }),
      error,
      1,
      undefined,
      NOW,
      fixed(0),
    );
    expect(decision).toMatchObject({ retry: true, delayMs: 4_000 });
  });

  it('respectRetryAfter: false ignores the hint and waits the backoff', () => {
    const error = new HttpError(429, { 'Retry-After': '60' });
    const resolved = policy({ backoff: { fixed: '1s' }, respectRetryAfter: false });
    expect(decideRetry(resolved, error, 1, undefined, NOW, fixed(0))).toMatchObject({
      retry: true,
      delayMs: 1_000,
    });
  });

  it('maxDelay caps a hint, and a backoff too', () => {
    const hinted = new HttpError(429, { 'Retry-After': '3600' });
    const capped = policy({ backoff: { fixed: '1s' }, maxDelay: '30s' });
    expect(decideRetry(capped, hinted, 1, undefined, NOW, fixed(0))).toMatchObject({
      retry: true,
      delayMs: 30_000,
    });
    const slow = policy({ backoff: { fixed: '2m' }, maxDelay: '30s' });
    expect(decideRetry(slow, new HttpError(503), 1, undefined, NOW, fixed(0))).toMatchObject({
      retry: true,
      delayMs: 30_000,
    });
  });

  it('the budget is checked before any hint: an exhausted step does not wait for Retry-After', () => {
    const error = new HttpError(429, { 'Retry-After': '60' });
    expect(decideRetry(policy({ maxAttempts: 2 }), error, 2, 1_000, NOW, fixed(0))).toEqual({
      retry: false,
      exhausted: true,
      reason: '2 of 2 attempts used',
    });
  });
});
