import type { Codec } from '../codec/Codec';
import { workflowPlanOf } from '../decorators/Plans';
import { findWorkflow } from '../decorators/WorkflowRegistry';
import { isInvalidRunStateError } from '../errors/InvalidRunStateError';
import { isRunNotFoundError } from '../errors/RunNotFoundError';
import { RunCancelledError } from '../errors/RunCancelledError';
import type { Clock } from '../ground/Clock';
import type { Logger } from '../ground/Logger';
import { CronSchedule, MAX_TICKS_PER_PASS, type CatchUp } from '../policies/CronSchedule';
import type { RunCancellation } from '../store/RunCancellation';
import type { RunPruner } from '../store/RunPruner';
import { newRunRowOf, type RunRow } from '../store/rows';
import { DEFAULT_QUEUE_PLACE, QueueAdmission, type QueuePlace } from '../store/QueueAdmission';
import type { RunStore } from '../store/RunStore';
import type { ScheduleRow, ScheduleStore } from '../store/ScheduleStore';
import type { FlowRegistry } from './execution/FlowRegistry';
import { deadlineOf } from './execution/RunTiming';
import { partitionKeyOf } from './execution/queuePlace';
import type { RuntimeEvents } from './execution/RuntimeEvents';

/** What a timekeeper uses. */
export interface TimekeeperDeps {
  readonly store: RunStore;
  readonly queueAdmission: QueueAdmission;
  readonly schedules: ScheduleStore;
  readonly cancellation: RunCancellation;
  readonly codec: Codec;
  readonly clock: Clock;
  readonly events: RuntimeEvents;
  readonly logger: Logger;
  /** A run was cancelled in the database: stop it here if it executes here. */
  readonly cancelledHere: (runId: string, error: RunCancelledError) => void;
  readonly pruner: RunPruner;
  /** The named queues: a tick of a workflow with `@Workflow({ queue })` waits in it. */
  readonly flows: FlowRegistry;
}

/** How many overdue runs one pass cancels. */
const OVERDUE_PER_PASS = 100;

/** How often (real time) a worker applies `@Workflow({ retention })`. */
const RETENTION_EVERY_MS = 60_000;

/**
 * What a worker does about time on each poll: starts the runs of schedule ticks that have
 * come (exactly one run per tick, whichever workers look and whichever of them dies), and
 * cancels runs past their deadline, with their child runs.
 */
export class Timekeeper {
  private nextRetentionAt = 0;
  private readonly queued: QueueAdmission;

  constructor(private readonly deps: TimekeeperDeps) {
    this.queued = deps.queueAdmission;
  }

  /** Where a tick's run waits: its workflow's named queue (partitioned by its arguments), or the default one. */
  private placeOf(row: ScheduleRow): QueuePlace {
    const address = findWorkflow(row.workflow);
    const name = address && workflowPlanOf(address.target, address.methodName)?.queue;
    if (name === undefined) return DEFAULT_QUEUE_PLACE;
    const queue = this.deps.flows.queue(name, `schedule "${row.name}": queue`);
    const args = queue.partitionBy ? (this.deps.codec.decode(row.args, 'args') as unknown[]) : [];
    return {
      queue: queue.name,
      partitionKey: partitionKeyOf(queue, args),
      priority: 0,
      dedupe: undefined,
    };
  }

  /** One pass for a worker that runs `workflows`. */
  async tend(workflows: string[]): Promise<void> {
    await this.fireSchedules(workflows);
    await this.cancelOverdue();
    if (performance.now() >= this.nextRetentionAt) {
      this.nextRetentionAt = performance.now() + RETENTION_EVERY_MS;
      await this.applyRetention(workflows);
    }
  }

  /** Deletes ended runs of `workflows` older than their `@Workflow({ retention })`. */
  async applyRetention(workflows: string[]): Promise<number> {
    const { pruner, clock } = this.deps;
    let deleted = 0;
    for (const name of workflows) {
      const address = findWorkflow(name);
      const retentionMs =
        address && workflowPlanOf(address.target, address.methodName)?.retentionMs;
      if (retentionMs === undefined) continue;
      const request = {
        before: clock.now() - retentionMs,
        statuses: ['completed', 'failed', 'cancelled'],
        workflows: [name],
        batchSize: 500,
      };
      deleted += (await pruner.prune(request)).deleted;
    }
    return deleted;
  }

  /** Starts the due ticks of schedules of `workflows`; returns how many runs it created. */
  async fireSchedules(workflows: string[]): Promise<number> {
    const { schedules, clock } = this.deps;
    let created = 0;
    for (const row of await schedules.due(workflows, clock.now(), 20)) {
      created += await this.fire(row, clock.now());
    }
    return created;
  }

  /** Cancels runs past their deadline or their start-by time. */
  async cancelOverdue(): Promise<void> {
    const { cancellation, codec, clock, events, logger } = this.deps;
    for (const run of await cancellation.overdue(clock.now(), OVERDUE_PER_PASS)) {
      const when = new Date(run.at).toISOString();
      const why =
        run.limit === 'deadline' ? `its deadline passed (${when})` : `it did not start by ${when}`;
      const error = new RunCancelledError(run.id, why);
      try {
        const ids = await cancellation.cancel(run.id, codec.encode(error, 'error'), clock.now());
        for (const id of ids) {
          this.deps.cancelledHere(id, error);
          events.emit('run.cancelled', { runId: id, reason: id === run.id ? why : error.message });
        }
      } catch (e) {
        if (isInvalidRunStateError(e) || isRunNotFoundError(e)) continue; // ended meanwhile
        logger.warn(`could not cancel overdue run "${run.id}"`, { error: e });
      }
    }
  }

  /**
   * Inserts the runs of the due ticks (ids derived from schedule and tick, so a second
   * insert of one is a no-op), then moves the schedule on with a compare-and-set. A worker
   * killed in between leaves the tick due; the next one inserts nothing new and moves it on.
   */
  private async fire(row: ScheduleRow, now: number): Promise<number> {
    const { schedules, events } = this.deps;
    const cron = CronSchedule.parse(row.cron, row.timezone, `schedule "${row.name}"`);
    const ticks = cron.dueTicks(row.nextAt, now, row.catchUp as CatchUp);
    let created = 0;
    for (const tick of ticks) {
      const run = tickRun(row, tick, now);
      if ((await this.queued.enqueue(run, this.placeOf(row))).kind !== 'inserted') continue;
      created++;
      events.emit('schedule.fired', { schedule: row.name, runId: run.id, tick });
    }
    const more = row.catchUp === 'all' && ticks.length === MAX_TICKS_PER_PASS;
    const next = cron.nextAfter(more ? ticks[ticks.length - 1] : Math.max(now, ...ticks));
    await schedules.advance(row.name, row.nextAt, next, now);
    return created;
  }
}

/** The run id of a schedule's tick: the same in every process. */
export function tickRunId(schedule: string, tick: number): string {
  return `${schedule}@${new Date(tick).toISOString()}`;
}

function tickRun(row: ScheduleRow, tick: number, now: number): RunRow {
  const address = findWorkflow(row.workflow);
  const workflow = address ? workflowPlanOf(address.target, address.methodName) : undefined;
  return newRunRowOf({
    id: tickRunId(row.name, tick),
    workflow: row.workflow,
    version: workflow?.version ?? null,
    args: row.args,
    deadlineAt: deadlineOf(undefined, workflow?.timeoutMs, now),
    createdAt: now,
  });
}
