import type { Clock } from '../ground/Clock';
import type { Lifecycle } from '../ground/Lifecycle';
import type { RunPruner } from '../store/RunPruner';
import { pruneRuns, type PruneOptions, type PruneResult } from './Pruning';
import type { ScheduleInfo, ScheduleOptions, Schedules } from './Schedules';

/**
 * The runtime's controls about time — stored schedules and retention. `WaymarkRuntime`
 * delegates `schedule`, `schedules`, `pauseSchedule`, `resumeSchedule`, `deleteSchedule` and
 * `prune` here.
 */
export class TimeControls {
  constructor(
    private readonly schedules: Schedules,
    private readonly pruner: RunPruner,
    private readonly clock: Clock,
    private readonly lifecycle: Lifecycle,
  ) {}

  define(name: string, options: ScheduleOptions): Promise<ScheduleInfo> {
    this.lifecycle.assertOpen('schedule()');
    return this.schedules.define(name, options);
  }

  list(): Promise<ScheduleInfo[]> {
    return this.schedules.list();
  }

  pause(name: string): Promise<void> {
    return this.schedules.pause(name);
  }

  resume(name: string): Promise<void> {
    return this.schedules.resume(name);
  }

  delete(name: string): Promise<boolean> {
    return this.schedules.delete(name);
  }

  prune(options: PruneOptions): Promise<PruneResult> {
    this.lifecycle.assertOpen('prune()');
    return pruneRuns(this.pruner, this.clock, options);
  }
}
