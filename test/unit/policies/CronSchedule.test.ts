import { CronSchedule } from '../../../src/policies/CronSchedule';

const at = (iso: string): number => Date.parse(iso);
const iso = (ms: number): string => new Date(ms).toISOString();

describe('CronSchedule', () => {
  it('reads the expression in its time zone, across a daylight-saving change', () => {
    const paris = CronSchedule.parse('0 9 * * *', 'Europe/Paris');
    expect(iso(paris.nextAfter(at('2026-03-28T12:00:00Z')))).toBe('2026-03-29T07:00:00.000Z');
    expect(iso(paris.nextAfter(at('2026-01-01T00:00:00Z')))).toBe('2026-01-01T08:00:00.000Z');
  });

  it('lists the ticks in a window, oldest first, at most a page', () => {
    const hourly = CronSchedule.parse('0 * * * *');
    const ticks = hourly.ticksBetween(at('2026-01-01T00:00:00Z'), at('2026-01-01T03:30:00Z'), 10);
    expect(ticks.map(iso)).toEqual([
      '2026-01-01T00:00:00.000Z',
      '2026-01-01T01:00:00.000Z',
      '2026-01-01T02:00:00.000Z',
      '2026-01-01T03:00:00.000Z',
    ]);
    expect(
      hourly.ticksBetween(at('2026-01-01T00:00:00Z'), at('2026-01-02T00:00:00Z'), 2),
    ).toHaveLength(2);
  });

  it('after downtime: all missed ticks, the latest one, or none of them', () => {
    const hourly = CronSchedule.parse('0 * * * *');
    const nextAt = at('2026-01-01T01:00:00Z');
    const now = at('2026-01-01T03:30:00Z');
    expect(hourly.dueTicks(nextAt, now, 'all')).toHaveLength(3);
    expect(hourly.dueTicks(nextAt, now, 'latest').map(iso)).toEqual(['2026-01-01T03:00:00.000Z']);
    expect(hourly.dueTicks(nextAt, now, 'skip')).toEqual([]);
    // A tick a few seconds late is not a missed one.
    expect(hourly.dueTicks(nextAt, nextAt + 5_000, 'skip')).toEqual([nextAt]);
  });

  it('refuses an expression that does not parse and a zone that does not exist, naming them', () => {
    expect(() => CronSchedule.parse('0 25 * * *')).toThrow(/cron "0 25 \* \* \*" does not parse/);
    expect(() => CronSchedule.parse('', 'UTC')).toThrow(/cron must be a cron expression/);
    expect(() => CronSchedule.parse('0 9 * * *', 'Europe/Atlantis')).toThrow(
      /timezone "Europe\/Atlantis" is not a time zone/,
    );
  });
});
