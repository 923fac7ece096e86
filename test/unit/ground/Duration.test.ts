import { ConfigurationError } from '../../../src/errors/ConfigurationError';
import {
  Duration,
  formatDuration,
  isDuration,
  MAX_DURATION_MS,
  parseDuration,
} from '../../../src/ground/Duration';

describe('parseDuration', () => {
  it.each<[Duration, number]>([
    [0, 0],
    [250, 250],
    [1.5, 2],
    ['1.1s', 1_100],
    ['0.4ms', 0],
    ['36525d', MAX_DURATION_MS],
    [MAX_DURATION_MS, 3_155_760_000_000],
    ['0ms', 0],
    ['500ms', 500],
    ['30s', 30_000],
    ['1.5s', 1_500],
    ['.5s', 500],
    ['5m', 300_000],
    ['2h', 7_200_000],
    ['7d', 604_800_000],
  ])('reads %p as %p milliseconds', (value, expected) => {
    expect(parseDuration(value, 'timeout')).toBe(expected);
  });

  it.each<[unknown, string]>([
    [-1, '-1'],
    [Number.NaN, 'NaN'],
    [Number.POSITIVE_INFINITY, 'Infinity'],
    ['-1s', "'-1s'"],
    ['3 days', "'3 days'"],
    ['', "''"],
    ['1.5.s', "'1.5.s'"],
    ['10', "'10'"],
    ['10w', "'10w'"],
    ['10S', "'10S'"],
    [' 10s', "' 10s'"],
    ['1s30ms', "'1s30ms'"],
    ['1.s', "'1.s'"],
    ['1e3ms', "'1e3ms'"],
    [null, 'null'],
    [undefined, 'undefined'],
    [true, 'true'],
    [{ ms: 5 }, 'an object'],
    [['1s'], 'an array'],
    [10n, '10n'],
    [1e300, '1e+300'],
    [9e15, '9000000000000000'],
    [MAX_DURATION_MS + 1, '3155760000001'],
    ['36526d', "'36526d'"],
    ['1e400ms', "'1e400ms'"],
  ])('rejects %p with a ConfigurationError naming the option and the value', (value, shown) => {
    const parse = () => parseDuration(value as Duration, '@Step(timeout)');
    expect(parse).toThrow(ConfigurationError);
    expect(parse).toThrow('@Step(timeout)');
    expect(parse).toThrow(`got ${shown}`);
  });

  it('says what it accepts: whole milliseconds up to 100 years', () => {
    expect(() => parseDuration(9e15, 'sleep()')).toThrow(
      "sleep() must be a duration of 0 to 100 years: milliseconds or a string like '500ms', " +
        "'30s', '5m', '2h' or '1d'; got 9000000000000000",
    );
  });

  it('rejects a numeral so long that it overflows to Infinity', () => {
    expect(() => parseDuration(`${'9'.repeat(400)}d` as Duration, 'lease')).toThrow(/^lease/);
  });
});

describe('isDuration', () => {
  it('accepts what parseDuration accepts', () => {
    for (const value of [0, 1000, '1ms', '1.5s', '5m', '2h', '1d']) {
      expect(isDuration(value)).toBe(true);
    }
  });

  it('rejects what parseDuration rejects', () => {
    for (const value of [-5, Number.NaN, '3 days', '', '1.5.s', '1x', null, undefined, {}]) {
      expect(isDuration(value)).toBe(false);
    }
  });
});

describe('formatDuration', () => {
  it.each<[number, string]>([
    [0, '0ms'],
    [250, '250ms'],
    [999.6, '1s'],
    [1_000, '1s'],
    [1_500, '1.5s'],
    [1_001, '1.001s'],
    [60_000, '1m'],
    [90_000, '1m30s'],
    [61_500, '1m1.5s'],
    [3_600_000, '1h'],
    [90_000_000, '1d1h'],
    [86_400_000 + 1_000, '1d1s'],
    [-1_500, '-1.5s'],
    [Number.POSITIVE_INFINITY, 'Infinity'],
  ])('formats %p ms as %p', (ms, expected) => {
    expect(formatDuration(ms)).toBe(expected);
  });

  it('formats what parseDuration reads back to the same milliseconds', () => {
    for (const ms of [1, 999, 1_000, 1_234, 59_999, 60_000, 3_599_999, 86_400_000]) {
      const text = formatDuration(ms);
      const back = text
        .match(/\d+(?:\.\d+)?(?:ms|s|m|h|d)/g)!
        .reduce((sum, part) => sum + parseDuration(part as Duration, 'part'), 0);
      expect(back).toBeCloseTo(ms, 6);
    }
  });
});
