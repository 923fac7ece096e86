import { FlowControls } from './FlowControls';
import { pruneRuns, type PruneOptions, type PruneResult } from './Pruning';
import type { ScheduleInfo, ScheduleOptions } from './Schedules';

/**
 * The runtime's methods about time — schedules and retention — kept apart from the rest of
 * `WaymarkRuntime`, which extends this class (this one extends the flow controls).
 */
export abstract class RuntimeTimeMethods extends FlowControls {
  /**
   * Creates (or redefines) the schedule `name`, stored in the database: on every tick of
   * `cron` in `timezone`, a worker that runs `workflow` starts one run of it with `args` —
   * exactly one run per tick however many workers run (its id is `name@<tick ISO time>`).
   * A cron expression that does not parse or an unknown time zone is refused here.
   *
   * @example
   * ```ts
   * await runtime.schedule('nightly-report', {
   *   cron: '0 2 * * *',
   *   timezone: 'Europe/Paris',
   *   workflow: 'reports.nightly',
   *   args: [{ format: 'pdf' }],
   *   catchUp: 'latest',
   * });
   * ```
   */
  schedule(name: string, options: ScheduleOptions): Promise<ScheduleInfo> {
    this.parts.lifecycle.assertOpen('schedule()');
    return this.parts.time.schedules.define(name, options);
  }

  /** Every stored schedule, by name. */
  schedules(): Promise<ScheduleInfo[]> {
    return this.parts.time.schedules.list();
  }

  /** Stops starting runs for the schedule until it is resumed. */
  pauseSchedule(name: string): Promise<void> {
    return this.parts.time.schedules.pause(name);
  }

  /** Starts the paused schedule again from its next tick (ticks while paused are not run). */
  resumeSchedule(name: string): Promise<void> {
    return this.parts.time.schedules.resume(name);
  }

  /** Deletes the schedule; runs it started stay. False when there was none. */
  deleteSchedule(name: string): Promise<boolean> {
    return this.parts.time.schedules.delete(name);
  }

  /**
   * Deletes ended runs (and their history) that ended longer ago than `olderThan`, in
   * batches, one sweeper at a time across all processes (`busy: true` when another was at
   * work). `@Workflow({ retention })` makes workers do the same on their own.
   *
   * @example
   * ```ts
   * const { deleted } = await runtime.prune({ olderThan: '30d', status: 'completed' });
   * ```
   */
  prune(options: PruneOptions): Promise<PruneResult> {
    this.parts.lifecycle.assertOpen('prune()');
    return pruneRuns(this.parts.time.pruner, this.parts.clock, options);
  }
}
