import type { Codec } from '../codec/Codec';
import type { Clock } from '../ground/Clock';
import type { Lifecycle } from '../ground/Lifecycle';
import type { Logger } from '../ground/Logger';
import type { RunCancellation } from '../store/RunCancellation';
import type { RunPruner } from '../store/RunPruner';
import type { Stores } from '../store/Stores';
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
  readonly stores: Stores;
  readonly codec: Codec;
  readonly clock: Clock;
  readonly lifecycle: Lifecycle;
  readonly logger: Logger;
  readonly events: RuntimeEvents;
  readonly executions: Executions;
  /** The named queues: a tick of a workflow with `@Workflow({ queue })` waits in it. */
  readonly flows: FlowRegistry;
}

/** Builds the time parts of one runtime. */
export function buildTimeParts(deps: TimePartsDeps): TimeParts {
  const { stores, codec, clock, logger, events, executions } = deps;
  const { cancellation, schedules: scheduleStore, pruner } = stores;
  const timekeeper = new Timekeeper({
    store: stores.runs,
    queueAdmission: stores.queueAdmission,
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
