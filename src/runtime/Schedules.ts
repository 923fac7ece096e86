import { Codec } from '../codec/Codec';
import { InvalidArgumentError } from '../errors/InvalidArgumentError';
import type { Clock } from '../ground/Clock';
import { CATCH_UP_POLICIES, CronSchedule, type CatchUp } from '../policies/CronSchedule';
import { assertText } from '../model/identifiers';
import type { ScheduleRow, ScheduleStore } from '../store/ScheduleStore';

export type { CatchUp } from '../policies/CronSchedule';

/** Options of `runtime.schedule()`. */
export interface ScheduleOptions {
  /** A cron expression (5 fields, or 6 with seconds first): `'0 9 * * 1-5'`. */
  cron: string;
  /** The IANA time zone the expression is read in; default `'UTC'`. */
  timezone?: string;
  /** The `@Workflow` name each tick starts (`Class.method` unless the decorator names it). */
  workflow: string;
  /** The arguments of every run the schedule starts; default none. */
  args?: unknown[];
  /**
   * Ticks that came while no worker ran: `'skip'` them, start only the `'latest'` (default),
   * or start `'all'` of them, oldest first.
   */
  catchUp?: CatchUp;
}

/** A stored schedule, as `runtime.schedules()` lists it. */
export interface ScheduleInfo {
  readonly name: string;
  readonly workflow: string;
  readonly cron: string;
  readonly timezone: string;
  readonly catchUp: CatchUp;
  readonly args: unknown[];
  readonly paused: boolean;
  /** The next tick a worker will start (for a paused schedule: when it was paused). */
  readonly nextAt: Date;
  readonly createdAt: Date;
}

/** The longest schedule name: a tick's run id is the name, `@` and a 24-character time. */
const MAX_SCHEDULE_NAME = 200;

/** Creates, lists, pauses, resumes and deletes stored schedules (the runtime's methods). */
export class Schedules {
  constructor(
    private readonly store: ScheduleStore,
    private readonly codec: Codec,
    private readonly clock: Clock,
  ) {}

  async define(name: string, options: ScheduleOptions): Promise<ScheduleInfo> {
    assertText(name, 'schedule(): name', MAX_SCHEDULE_NAME);
    if (options === null || typeof options !== 'object') {
      throw new InvalidArgumentError('schedule(): options', 'must be an object');
    }
    assertText(options.workflow, 'schedule(): workflow', 255);
    const cron = CronSchedule.parse(options.cron, options.timezone ?? 'UTC');
    const catchUp = options.catchUp ?? 'latest';
    if (!CATCH_UP_POLICIES.includes(catchUp)) {
      throw new InvalidArgumentError(
        'schedule(): catchUp',
        `must be one of ${CATCH_UP_POLICIES.map((p) => `"${p}"`).join(', ')}, got ${JSON.stringify(catchUp)}`,
      );
    }
    if (options.args !== undefined && !Array.isArray(options.args)) {
      throw new InvalidArgumentError('schedule(): args', 'must be an array of arguments');
    }
    const now = this.clock.now();
    const stored = await this.store.save({
      name,
      workflow: options.workflow,
      args: Codec.canonical(this.codec.encode(options.args ?? [], 'args')),
      cron: cron.cron,
      timezone: cron.timezone,
      catchUp,
      paused: false,
      nextAt: cron.nextAfter(now),
      createdAt: now,
      updatedAt: now,
    });
    return this.info(stored);
  }

  async list(): Promise<ScheduleInfo[]> {
    return (await this.store.list()).map((row) => this.info(row));
  }

  async pause(name: string): Promise<void> {
    assertText(name, 'pauseSchedule(): name', MAX_SCHEDULE_NAME);
    const found = await this.store.setPaused(name, true, null, this.clock.now());
    if (!found) throw noSchedule('pauseSchedule()', name);
  }

  /** Resumes from the next tick after now: ticks that came while paused are not started. */
  async resume(name: string): Promise<void> {
    assertText(name, 'resumeSchedule(): name', MAX_SCHEDULE_NAME);
    const row = await this.store.get(name);
    if (!row) throw noSchedule('resumeSchedule()', name);
    const now = this.clock.now();
    const next = CronSchedule.parse(row.cron, row.timezone).nextAfter(now);
    await this.store.setPaused(name, false, next, now);
  }

  async delete(name: string): Promise<boolean> {
    assertText(name, 'deleteSchedule(): name', MAX_SCHEDULE_NAME);
    return this.store.delete(name);
  }

  private info(row: ScheduleRow): ScheduleInfo {
    return {
      name: row.name,
      workflow: row.workflow,
      cron: row.cron,
      timezone: row.timezone,
      catchUp: row.catchUp as CatchUp,
      args: this.codec.decode(row.args, `schedule "${row.name}" args`) as unknown[],
      paused: row.paused,
      nextAt: new Date(row.nextAt),
      createdAt: new Date(row.createdAt),
    };
  }
}

function noSchedule(where: string, name: string): InvalidArgumentError {
  return new InvalidArgumentError(`${where}: name`, `"${name}" names no stored schedule`);
}
