import { ConfigurationError } from '../errors/ConfigurationError';

/**
 * A length of time: a number of milliseconds, or a string with one unit (`ms`, `s`, `m`,
 * `h`, `d`). Fractions are allowed (`'1.5s'`) and rounded to whole milliseconds; spaces,
 * signs and compound strings are not, so `'3 days'` does not compile. At most
 * {@link MAX_DURATION_MS} (100 years).
 *
 * @example
 * ```ts
 * const timeout: Duration = '60s';
 * const lease: Duration = 30_000;
 * ```
 */
export type Duration =
  number | `${number}ms` | `${number}s` | `${number}m` | `${number}h` | `${number}d`;

const UNIT_MS = { ms: 1, s: 1_000, m: 60_000, h: 3_600_000, d: 86_400_000 } as const;

type Unit = keyof typeof UNIT_MS;

/**
 * The longest duration waymark accepts: 100 years (of 365.25 days), in milliseconds. Any
 * wait, timeout or lease beyond it is a mistake (`sleep(9e15)`), and wake-up times stay
 * far inside what a `Date` and a `BIGINT` column hold.
 */
export const MAX_DURATION_MS = 100 * 365.25 * UNIT_MS.d;

// `ms` is listed before `m`; the anchors make the alternation pick the whole suffix anyway.
const DURATION_PATTERN = /^(\d+(?:\.\d+)?|\.\d+)(ms|s|m|h|d)$/;

function toMilliseconds(value: unknown): number | undefined {
  let ms: number;
  if (typeof value === 'number') {
    ms = value;
  } else if (typeof value === 'string') {
    const match = DURATION_PATTERN.exec(value);
    if (match === null) return undefined;
    ms = Number(match[1]) * UNIT_MS[match[2] as Unit];
  } else {
    return undefined;
  }
  // NaN and Infinity (a few hundred digits overflow even though the pattern matched) fail
  // both comparisons. Rounding takes '1.1s' (1100.0000000000002) to the millisecond.
  return ms >= 0 && ms <= MAX_DURATION_MS ? Math.round(ms) : undefined;
}

function describeValue(value: unknown): string {
  if (typeof value === 'string') return `'${value}'`;
  if (typeof value === 'bigint') return `${value}n`;
  if (typeof value === 'function') return 'a function';
  if (Array.isArray(value)) return 'an array';
  if (typeof value === 'object' && value !== null) return 'an object';
  return String(value);
}

/**
 * Converts a {@link Duration} to milliseconds.
 *
 * @param value - the duration, usually straight from user options.
 * @param what - names the option in the error message, e.g. `'@Step(timeout)'`.
 * @returns the duration in whole milliseconds, from 0 to {@link MAX_DURATION_MS}.
 * @throws {@link ConfigurationError} naming `what` and the value when it is negative,
 * NaN, infinite, over 100 years, of an unknown unit, malformed (`'3 days'`, `''`,
 * `'1.5.s'`) or not a number or string.
 */
export function parseDuration(value: Duration, what: string): number {
  const ms = toMilliseconds(value);
  if (ms === undefined) {
    throw new ConfigurationError(
      `${what} must be a duration of 0 to 100 years: milliseconds or a string like ` +
        `'500ms', '30s', '5m', '2h' or '1d'; got ${describeValue(value)}`,
    );
  }
  return ms;
}

/** True when `value` is a valid {@link Duration}, i.e. {@link parseDuration} accepts it. */
export function isDuration(value: unknown): value is Duration {
  return toMilliseconds(value) !== undefined;
}

const FORMAT_UNITS: ReadonlyArray<readonly [string, number]> = [
  ['d', UNIT_MS.d],
  ['h', UNIT_MS.h],
  ['m', UNIT_MS.m],
];

/**
 * Formats milliseconds for messages and logs: `1500` → `'1.5s'`, `90000` → `'1m30s'`,
 * `250` → `'250ms'`, `90000000` → `'1d1h'`. Rounds to whole milliseconds.
 */
export function formatDuration(ms: number): string {
  if (!Number.isFinite(ms)) return String(ms);
  if (ms < 0) return `-${formatDuration(-ms)}`;
  let rest = Math.round(ms);
  if (rest < UNIT_MS.s) return `${rest}ms`;
  let text = '';
  for (const [unit, size] of FORMAT_UNITS) {
    const count = Math.floor(rest / size);
    if (count > 0) text += `${count}${unit}`;
    rest -= count * size;
  }
  // Whole-millisecond remainders divide by 1000 exactly enough for String() to print them.
  if (rest > 0) text += `${rest / UNIT_MS.s}s`;
  return text;
}
