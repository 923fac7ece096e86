/**
 * Compile-time contract of schedules, deadlines, fan-out and retention: every
 * `@ts-expect-error` below must be an error, and everything else must compile. Checked by
 * `tsc` in `npm test`; never run.
 */
import {
  Step,
  Workflow,
  WorkflowContext,
  type PruneResult,
  type ScheduleInfo,
  type WaymarkRuntime,
} from 'waymark';

export class Reports {
  constructor(private readonly ctx: WorkflowContext) {}

  @Workflow({ name: 'types.reports', timeout: '15m', retention: '30d' })
  async all(regions: string[]): Promise<number[]> {
    const sizes: number[] = await this.ctx.all(
      regions.map((region) => () => this.region(region)),
      { concurrency: 2 },
    );
    return sizes;
  }

  // @ts-expect-error a timeout is a duration, not a word
  @Workflow({ name: 'types.bad-timeout', timeout: 'forever' })
  async bad(): Promise<void> {}

  @Workflow({ name: 'types.region' })
  async region(region: string): Promise<number> {
    return this.size(region);
  }

  @Step()
  async size(region: string): Promise<number> {
    return region.length;
  }
}

export async function operate(runtime: WaymarkRuntime): Promise<void> {
  const info: ScheduleInfo = await runtime.schedule('nightly', {
    cron: '0 2 * * *',
    timezone: 'Europe/Paris',
    workflow: 'types.reports',
    args: [['eu']],
    catchUp: 'all',
  });
  const next: Date = info.nextAt;
  void next;
  // @ts-expect-error catchUp is one of skip, latest, all
  await runtime.schedule('bad', { cron: '* * * * *', workflow: 'w', catchUp: 'some' });
  // @ts-expect-error a schedule needs a cron expression
  await runtime.schedule('bad', { workflow: 'w' });
  await runtime.pauseSchedule('nightly');
  await runtime.resumeSchedule('nightly');
  const deleted: boolean = await runtime.deleteSchedule('nightly');
  void deleted;
  await runtime.start(Reports, 'all', [['eu']], { at: new Date(), deadline: '1h' });
  await runtime.start(Reports, 'all', [['eu']], { queue: true, startBy: '5m' });
  // @ts-expect-error a deadline is a Date or a duration
  await runtime.start(Reports, 'all', [['eu']], { deadline: 'tomorrow' });
  const pruned: PruneResult = await runtime.prune({ olderThan: '30d', status: ['completed'] });
  void pruned.deleted;
  // @ts-expect-error only ended runs are pruned
  await runtime.prune({ olderThan: '30d', status: 'running' });
}
