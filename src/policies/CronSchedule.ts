import type * as CronParser from 'cron-parser';
import { InvalidArgumentError } from '../errors/InvalidArgumentError';

let loaded: typeof CronParser | undefined;

/** cron-parser (and luxon under it), loaded on first use: `require('waymark')` stays light. */
function cronParser(): typeof CronParser {
  // eslint-disable-next-line @typescript-eslint/no-require-imports -- deferred on purpose
  return (loaded ??= require('cron-parser') as typeof CronParser);
}

/** What to do with ticks that came due while no worker was running. */
export type CatchUp = 'skip' | 'latest' | 'all';

/** The catch-up policies, for validation. */
export const CATCH_UP_POLICIES: readonly CatchUp[] = ['skip', 'latest', 'all'];

/**
 * A tick older than this when a worker first sees it is a missed one (the workers were
 * down): `catchUp: 'skip'` drops it. A tick a poll interval late is not missed.
 */
export const MISSED_AFTER_MS = 60_000;

/** The most ticks one pass starts for one schedule (`catchUp: 'all'` goes on next pass). */
export const MAX_TICKS_PER_PASS = 100;

/**
 * A cron expression in a time zone: which instants are ticks. Pure; the expression and the
 * zone are checked when it is made, so a bad one is refused at `runtime.schedule()`.
 */
export class CronSchedule {
  private constructor(
    readonly cron: string,
    readonly timezone: string,
  ) {}

  /** Checks `cron` and `timezone`; a bad one throws an `InvalidArgumentError` naming it. */
  static parse(cron: string, timezone = 'UTC', where = 'schedule()'): CronSchedule {
    if (typeof timezone !== 'string' || !zoneExists(timezone)) {
      throw new InvalidArgumentError(
        `${where}: timezone`,
        `"${String(timezone)}" is not a time zone (use an IANA name such as "Europe/Paris" or "UTC")`,
      );
    }
    if (typeof cron !== 'string' || cron.trim() === '') {
      throw new InvalidArgumentError(
        `${where}: cron`,
        'must be a cron expression such as "0 9 * * *"',
      );
    }
    try {
      cronParser().CronExpressionParser.parse(cron, { tz: timezone, strict: false });
    } catch (error) {
      const reason = error instanceof Error ? error.message : String(error);
      throw new InvalidArgumentError(`${where}: cron`, `"${cron}" does not parse: ${reason}`);
    }
    return new CronSchedule(cron, timezone);
  }

  /** The first tick strictly after `after`. */
  nextAfter(after: number): number {
    return this.iterator(after).next().getTime();
  }

  /** Ticks in `[from, upTo]`, oldest first, at most `limit` of them. */
  ticksBetween(from: number, upTo: number, limit: number): number[] {
    const ticks: number[] = [];
    const it = this.iterator(from - 1);
    while (ticks.length < limit) {
      const tick = it.next().getTime();
      if (tick > upTo) break;
      ticks.push(tick);
    }
    return ticks;
  }

  /**
   * The ticks a pass starts, when the schedule's next tick `nextAt` has come at `now`, under
   * `catchUp`: every tick (`all`, a page at a time), the newest one (`latest`), or the newest
   * one only if it is not a missed one (`skip`).
   */
  dueTicks(nextAt: number, now: number, catchUp: CatchUp): number[] {
    if (catchUp === 'all') return this.ticksBetween(nextAt, now, MAX_TICKS_PER_PASS);
    const latest = this.latestAtOrBefore(nextAt, now);
    if (catchUp === 'skip' && now - latest > MISSED_AFTER_MS) return [];
    return [latest];
  }

  private latestAtOrBefore(nextAt: number, now: number): number {
    const it = this.iterator(now + 1);
    const previous = it.prev().getTime();
    return Math.max(previous, nextAt);
  }

  private iterator(currentDate: number) {
    return cronParser().CronExpressionParser.parse(this.cron, {
      tz: this.timezone,
      currentDate: new Date(currentDate),
    });
  }
}

function zoneExists(timezone: string): boolean {
  try {
    new Intl.DateTimeFormat('en-US', { timeZone: timezone });
    return true;
  } catch {
    return false;
  }
}
