import { RetryableError } from '../../../src/errors/RetryableError';
import { readRetryAfter, retryDelay } from '../../../src/policies/RetryAfter';

const NOW = Date.parse('2025-03-01T12:00:00Z');

function withHeaders(headers: unknown): Error {
  return Object.assign(new Error('HTTP 429'), { status: 429, headers });
}

describe('readRetryAfter', () => {
  it('reads Retry-After as seconds', () => {
    expect(readRetryAfter(withHeaders({ 'retry-after': '120' }), NOW)).toBe(120_000);
  });

  it('reads Retry-After given as a number', () => {
    expect(readRetryAfter(withHeaders({ 'retry-after': 3 }), NOW)).toBe(3_000);
  });

  it('reads Retry-After as an HTTP date relative to now', () => {
    const headers = { 'Retry-After': 'Sat, 01 Mar 2025 12:00:30 GMT' };
    expect(readRetryAfter(withHeaders(headers), NOW)).toBe(30_000);
  });

  it('reads the obsolete RFC 850 and asctime date forms, asctime as GMT', () => {
    expect(
      readRetryAfter(withHeaders({ 'retry-after': 'Saturday, 01-Mar-25 12:01:00 GMT' }), NOW),
    ).toBe(60_000);
    expect(readRetryAfter(withHeaders({ 'retry-after': 'Sat Mar  1 12:00:05 2025' }), NOW)).toBe(
      5_000,
    );
  });

  it('gives 0 for an HTTP date in the past', () => {
    const headers = { 'retry-after': 'Sat, 01 Mar 2025 11:00:00 GMT' };
    expect(readRetryAfter(withHeaders(headers), NOW)).toBe(0);
  });

  it('reads retry-after-ms in milliseconds and prefers it over Retry-After', () => {
    const headers = { 'retry-after-ms': '1500', 'retry-after': '60' };
    expect(readRetryAfter(withHeaders(headers), NOW)).toBe(1_500);
  });

  it('reads headers from a WHATWG Headers object', () => {
    const headers = new Headers({ 'Retry-After': '7' });
    expect(readRetryAfter(withHeaders(headers), NOW)).toBe(7_000);
    expect(readRetryAfter(withHeaders(new Headers({ 'Retry-After-Ms': '250' })), NOW)).toBe(250);
  });

  it('reads headers from a plain object case-insensitively', () => {
    expect(readRetryAfter(withHeaders({ 'RETRY-after': '2' }), NOW)).toBe(2_000);
    expect(readRetryAfter(withHeaders({ 'Retry-After-MS': '20' }), NOW)).toBe(20);
  });

  it('takes the first value of an array header', () => {
    expect(readRetryAfter(withHeaders({ 'retry-after': ['4', '9'] }), NOW)).toBe(4_000);
  });

  it('reads headers on error.response.headers', () => {
    const error = Object.assign(new Error('x'), {
      response: { status: 503, headers: new Headers({ 'retry-after': '11' }) },
    });
    expect(readRetryAfter(error, NOW)).toBe(11_000);
  });

  it('reads RetryableError.retryAfter as a Duration, before any header', () => {
    const error = Object.assign(new RetryableError('busy', { retryAfter: '2m' }), {
      headers: { 'retry-after': '5' },
    });
    expect(readRetryAfter(error, NOW)).toBe(120_000);
    expect(readRetryAfter(new RetryableError('busy', { retryAfter: 800 }), NOW)).toBe(800);
  });

  it('reads a hint on the cause of a wrapping error', () => {
    const cause = withHeaders({ 'retry-after': '9' });
    expect(readRetryAfter(new RetryableError('rate limited', { cause }), NOW)).toBe(9_000);
  });

  it.each<[string, unknown]>([
    ['a word', 'soon'],
    ['a negative number', '-5'],
    ['a number with a unit', '5s'],
    ['an empty string', ''],
    ['an impossible date', 'Sun, 99 Foo 2025 99:99:99 GMT'],
    ['a date without a day name', '2025-03-01T12:00:30Z'],
    ['two combined values', '5, 10'],
    ['NaN', Number.NaN],
    ['an object', { seconds: 5 }],
  ])('ignores a malformed Retry-After: %s', (_, value) => {
    expect(readRetryAfter(withHeaders({ 'retry-after': value }), NOW)).toBeUndefined();
  });

  it('ignores a malformed retry-after-ms and falls back to Retry-After', () => {
    const headers = { 'retry-after-ms': 'later', 'retry-after': '3' };
    expect(readRetryAfter(withHeaders(headers), NOW)).toBe(3_000);
  });

  it('ignores an invalid RetryableError.retryAfter', () => {
    const error = new RetryableError('x', { retryAfter: '3 days' as never });
    expect(readRetryAfter(error, NOW)).toBeUndefined();
  });

  it('returns undefined when there is no hint at all', () => {
    expect(readRetryAfter(new Error('plain'), NOW)).toBeUndefined();
    expect(readRetryAfter(withHeaders({ 'content-type': 'text/plain' }), NOW)).toBeUndefined();
    expect(readRetryAfter(withHeaders('retry-after: 5'), NOW)).toBeUndefined();
    expect(readRetryAfter('boom', NOW)).toBeUndefined();
    expect(readRetryAfter(undefined, NOW)).toBeUndefined();
  });
});

describe('retryDelay', () => {
  it('waits the larger of backoff and hint', () => {
    expect(retryDelay(2_000, 30_000)).toBe(30_000);
    expect(retryDelay(45_000, 30_000)).toBe(45_000);
  });

  it('waits the backoff when there is no hint', () => {
    expect(retryDelay(2_000, undefined)).toBe(2_000);
  });

  it('ignores the hint when respectRetryAfter is false', () => {
    expect(retryDelay(2_000, 30_000, { respectRetryAfter: false })).toBe(2_000);
  });

  it('caps the delay at maxDelay, also when the hint is longer', () => {
    expect(retryDelay(2_000, 3_600_000, { maxDelayMs: 60_000 })).toBe(60_000);
    expect(retryDelay(90_000, undefined, { maxDelayMs: 60_000 })).toBe(60_000);
    expect(retryDelay(2_000, 10_000, { maxDelayMs: 60_000 })).toBe(10_000);
  });

  it('combines with readRetryAfter for a 503 with Retry-After', () => {
    const error = withHeaders(new Headers({ 'retry-after': '20' }));
    expect(retryDelay(1_000, readRetryAfter(error, NOW), { maxDelayMs: 15_000 })).toBe(15_000);
  });
});
