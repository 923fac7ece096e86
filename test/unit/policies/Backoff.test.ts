import { ConfigurationError } from '../../../src/errors/ConfigurationError';
import {
  BackoffOptions,
  DEFAULT_BACKOFF,
  Jitter,
  ResolvedBackoff,
  backoffDelay,
  resolveBackoff,
} from '../../../src/policies/Backoff';
import { mulberry32 } from '../../support/SeededRandom';

const SAMPLES = 2_000;
const policy = (jitter: Jitter): ResolvedBackoff =>
  resolveBackoff({ initial: '100ms', factor: 2, max: '10s', jitter });
const ceiling = (attempt: number) => Math.min(10_000, 100 * 2 ** (attempt - 1));

/** Runs `SAMPLES` seeded retry sequences of attempts 1..10 and collects delays per attempt. */
function sample(resolved: ResolvedBackoff, seed = 42): number[][] {
  const random = mulberry32(seed);
  const byAttempt: number[][] = Array.from({ length: 10 }, () => []);
  for (let run = 0; run < SAMPLES; run++) {
    let previous: number | undefined;
    for (let attempt = 1; attempt <= 10; attempt++) {
      previous = backoffDelay(resolved, attempt, previous, random);
      byAttempt[attempt - 1].push(previous);
    }
  }
  return byAttempt;
}

describe('resolveBackoff', () => {
  it('fills in the defaults: 1s initial, factor 2, 5m max, full jitter', () => {
    expect(DEFAULT_BACKOFF).toEqual({ initial: '1s', factor: 2, max: '5m', jitter: 'full' });
    expect(Object.isFrozen(DEFAULT_BACKOFF)).toBe(true);
    const expected = { initialMs: 1_000, factor: 2, maxMs: 300_000, jitter: 'full' };
    expect(resolveBackoff(undefined)).toEqual(expected);
    expect(resolveBackoff({})).toEqual(expected);
    expect(resolveBackoff({ initial: undefined, jitter: undefined })).toEqual(expected);
  });

  it('keeps given values and converts durations to milliseconds', () => {
    expect(resolveBackoff({ initial: '2s', factor: 3, max: '1m', jitter: 'equal' })).toEqual({
      initialMs: 2_000,
      factor: 3,
      maxMs: 60_000,
      jitter: 'equal',
    });
  });

  it('returns a frozen policy', () => {
    expect(Object.isFrozen(resolveBackoff({}))).toBe(true);
    expect(Object.isFrozen(resolveBackoff({ fixed: '1s' }))).toBe(true);
  });

  it('turns a fixed backoff into a constant policy', () => {
    expect(resolveBackoff({ fixed: '10s' })).toEqual({
      initialMs: 10_000,
      factor: 1,
      maxMs: 10_000,
      jitter: 'none',
    });
  });

  it.each<[string, unknown, RegExp]>([
    ['a bad initial', { initial: '1 sec' }, /@Retry\(backoff\)\.initial .*'1 sec'/],
    ['a negative max', { max: -5 }, /@Retry\(backoff\)\.max .*-5/],
    ['a bad fixed delay', { fixed: 'soon' }, /@Retry\(backoff\)\.fixed .*'soon'/],
    ['a factor below 1', { factor: 0.5 }, /@Retry\(backoff\)\.factor .*0\.5/],
    ['a NaN factor', { factor: Number.NaN }, /@Retry\(backoff\)\.factor .*NaN/],
    ['a string factor', { factor: '2' }, /@Retry\(backoff\)\.factor/],
    ['an unknown jitter', { jitter: 'random' }, /@Retry\(backoff\)\.jitter .*'random'/],
    [
      'initial above max',
      { initial: '2m', max: '1m' },
      /\.initial \(2m\) must not exceed .*\.max \(1m\)/,
    ],
    ['initial above the default max', { initial: '1h' }, /\.initial \(1h\) .*\.max \(5m\)/],
    ['fixed mixed with exponential options', { fixed: '1s', factor: 2 }, /\.fixed .*'factor'/],
    ['an unknown option', { intial: '1s' }, /unknown option 'intial'/],
    ['a non-object', '1s', /@Retry\(backoff\) must be an object/],
  ])('rejects %s with a ConfigurationError naming the field', (_, options, message) => {
    const resolve = () => resolveBackoff(options as BackoffOptions, '@Retry(backoff)');
    expect(resolve).toThrow(ConfigurationError);
    expect(resolve).toThrow(message);
  });
});

describe('backoffDelay', () => {
  it('without jitter is min(max, initial * factor^(n-1)) for attempts 1..10', () => {
    const resolved = policy('none');
    const delays = [1, 2, 3, 4, 5, 6, 7, 8, 9, 10].map((n) =>
      backoffDelay(resolved, n, undefined, () => 0.5),
    );
    expect(delays).toEqual([100, 200, 400, 800, 1_600, 3_200, 6_400, 10_000, 10_000, 10_000]);
  });

  it('with full jitter stays in [0, d] and reaches both ends', () => {
    sample(policy('full')).forEach((delays, index) => {
      const d = ceiling(index + 1);
      expect(Math.min(...delays)).toBeGreaterThanOrEqual(0);
      expect(Math.max(...delays)).toBeLessThanOrEqual(d);
      expect(Math.min(...delays)).toBeLessThan(d * 0.01);
      expect(Math.max(...delays)).toBeGreaterThan(d * 0.99);
    });
  });

  it('with equal jitter stays in [d/2, d] and reaches both ends', () => {
    sample(policy('equal')).forEach((delays, index) => {
      const d = ceiling(index + 1);
      expect(Math.min(...delays)).toBeGreaterThanOrEqual(d / 2);
      expect(Math.max(...delays)).toBeLessThanOrEqual(d);
      expect(Math.min(...delays)).toBeLessThan(d * 0.51);
      expect(Math.max(...delays)).toBeGreaterThan(d * 0.99);
    });
  });

  it('with decorrelated jitter stays in [initial, min(max, 3 * previous)]', () => {
    const resolved = policy('decorrelated');
    const random = mulberry32(7);
    for (let run = 0; run < SAMPLES; run++) {
      let previous: number | undefined;
      for (let attempt = 1; attempt <= 10; attempt++) {
        const delay = backoffDelay(resolved, attempt, previous, random);
        expect(delay).toBeGreaterThanOrEqual(100);
        expect(delay).toBeLessThanOrEqual(Math.min(10_000, 3 * (previous ?? 100)));
        previous = delay;
      }
    }
  });

  it('with decorrelated jitter reaches both ends of its range', () => {
    const byAttempt = sample(policy('decorrelated'));
    expect(Math.min(...byAttempt[0])).toBeLessThan(102);
    expect(Math.max(...byAttempt[0])).toBeGreaterThan(298);
    for (const delays of byAttempt.slice(1)) {
      expect(Math.min(...delays)).toBeLessThan(110);
    }
    // Later attempts hit the cap: min() turns the upper part of the range into exactly max.
    expect(byAttempt[9]).toContain(10_000);
  });

  it('with decorrelated jitter starts from initial on the first retry whatever previous says', () => {
    expect(backoffDelay(policy('decorrelated'), 1, 5_000, () => 0.999_999)).toBeCloseTo(300, 2);
  });

  it('with a fixed backoff always waits the fixed delay', () => {
    const resolved = resolveBackoff({ fixed: '2.5s' });
    const random = mulberry32(1);
    for (let attempt = 1; attempt <= 10; attempt++) {
      expect(backoffDelay(resolved, attempt, 2_500, random)).toBe(2_500);
    }
  });

  it('with the defaults waits up to 1s, 2s, 4s … capped at 5 minutes', () => {
    const resolved = resolveBackoff({});
    const upper = (attempt: number) => backoffDelay(resolved, attempt, undefined, () => 1 - 1e-12);
    expect(upper(1)).toBeCloseTo(1_000, 6);
    expect(upper(3)).toBeCloseTo(4_000, 6);
    expect(upper(20)).toBeCloseTo(300_000, 3);
    expect(backoffDelay(resolved, 3, undefined, () => 0)).toBe(0);
  });

  it('stays finite when the exponent overflows, also with a zero initial delay', () => {
    expect(backoffDelay(policy('none'), 5_000, undefined, Math.random)).toBe(10_000);
    const zero = resolveBackoff({ initial: 0, jitter: 'none' });
    expect(backoffDelay(zero, 5_000, undefined, Math.random)).toBe(0);
  });

  it('is deterministic for a given random source', () => {
    expect(sample(policy('full'), 3)).toEqual(sample(policy('full'), 3));
  });

  it.each([0, -1, 1.5, Number.NaN])('rejects attempt %p', (attempt) => {
    expect(() => backoffDelay(policy('none'), attempt, undefined, Math.random)).toThrow(RangeError);
  });
});
