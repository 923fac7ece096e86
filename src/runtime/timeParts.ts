import type { Codec } from '../codec/Codec';
import type { Clock } from '../ground/Clock';
import type { Lifecycle } from '../ground/Lifecycle';
import type { Logger } from '../ground/Logger';
import { RunCancellation } from '../store/RunCancellation';
import { RunPruner } from '../store/RunPruner';
import type { RunStore } from '../store/RunStore';
import { ScheduleStore } from '../store/ScheduleStore';
import type { StoreConnection } from '../store/connection/StoreConnection';
import type { Executions } from './execution/Executions';
import type { FlowRegistry } from './execution/FlowRegistry';
import type { RuntimeEvents } from './execution/RuntimeEvents';
import { Schedules } from './Schedules';
import { Timekeeper } from './Timekeeper';

/** The parts of a runtime about time: schedules, deadlines and cancellation, retention. */
export interface TimeParts {
  readonly cancellation: RunCancellation;
  readonly schedules: Schedules;
  readonly timekeeper: Timekeeper;
  readonly pruner: RunPruner;
}

/** What the time parts are built from. */
export interface TimePartsDeps {
  readonly connection: StoreConnection;
  readonly store: RunStore;
  readonly codec: Codec;
  readonly clock: Clock;
  readonly lifecycle: Lifecycle;
  readonly logger: Logger;
  readonly events: RuntimeEvents;
  readonly executions: Executions;
  /** The named queues: a tick of a workflow with `@Workflow({ queue })` waits in it. */
  readonly flows: FlowRegistry;
  /** Who this runtime is on a lock (its lease process). */
  readonly holder: string;
}

/** Builds the time parts of one runtime. */
export function buildTimeParts(deps: TimePartsDeps): TimeParts {
  const { connection, store, codec, clock, lifecycle, logger, events, executions } = deps;
  const cancellation = new RunCancellation(connection, lifecycle);
  const scheduleStore = new ScheduleStore(store);
  const pruner = new RunPruner(store, deps.holder);
  const timekeeper = new Timekeeper({
    store,
    schedules: scheduleStore,
    cancellation,
    codec,
    clock,
    events,
    logger,
    pruner,
    flows: deps.flows,
    cancelledHere: (runId, error) => executions.cancelLocal(runId, error),
  });
  return {
    cancellation,
    schedules: new Schedules(scheduleStore, codec, clock),
    timekeeper,
    pruner,
  };
}
