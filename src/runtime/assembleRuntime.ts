import type { DependencyContainer } from 'tsyringe';
import type { DataSource } from 'typeorm';
import type { Codec } from '../codec/Codec';
import type { Clock } from '../ground/Clock';
import type { Lifecycle } from '../ground/Lifecycle';
import type { LeaseHolder } from '../ground/ProcessIdentity';
import type { RuntimeStores } from './assembleStores';
import type { ExecutionFloor } from './execution/assembleExecution';
import type { RuntimeEvents } from './execution/RuntimeEvents';
import type { ResolveInstance } from './execution/StoredCalls';
import {
  AbandonedRunsNotice,
  ABANDONED_RUNS_NOTICE_DELAY_MS,
  claimProcessNotice,
} from './AbandonedRunsNotice';
import { FlowControls } from './FlowControls';
import { LeaseKeeper } from './LeaseKeeper';
import { OperatorActions } from './OperatorActions';
import { Replays } from './Replays';
import { RunReads } from './RunReads';
import { Runs } from './Runs';
import type { WorkflowEntry } from './RuntimeRegistry';
import type { RuntimeServices } from './RuntimeServices';
import type { RuntimeSettings } from './RuntimeSettings';
import { Schedules } from './Schedules';
import { Shutdown } from './Shutdown';
import { TimeControls } from './TimeControls';
import { Timekeeper } from './Timekeeper';
import { Workers } from './Workers';

/** What the runtime floor is built on: the floors below it, and who the runtime is. */
export interface RuntimeFloorSettings {
  readonly stores: RuntimeStores;
  readonly execution: ExecutionFloor;
  readonly settings: RuntimeSettings;
  readonly codec: Codec;
  readonly lifecycle: Lifecycle;
  readonly self: LeaseHolder;
  readonly container: DependencyContainer;
  readonly dataSource: DataSource;
  readonly resolveInstance: ResolveInstance;
  readonly release: () => Promise<void>;
}

/** The runtime floor: the services `WaymarkRuntime` delegates to, and its way in for workflow calls. */
export interface RuntimeFloor {
  readonly services: RuntimeServices;
  readonly entry: WorkflowEntry;
}

/**
 * Builds the runtime floor in dependency order on the floors below: runs → operator actions,
 * time (timekeeper, schedules) → lease keeping → shutdown → workers → the facade's services.
 */
export function assembleRuntime(s: RuntimeFloorSettings): RuntimeFloor {
  const { stores, execution, codec, lifecycle, self } = s;
  const { clock, logger, leaseMs } = s.settings;
  const { runs: store, leases, runClaims: queue, signals } = stores;
  const { events, executions, flows, claims } = execution;
  const runs = new Runs({
    ...execution,
    ...{ store, leases, queue, signals, codec, clock, self },
    resolveInstance: s.resolveInstance,
  });
  const operator = new OperatorActions({
    ...{ control: stores.control, cancellation: stores.cancellation },
    ...{ runs, executions, claims, codec, clock, events },
  });
  const timekeeper = startTimekeeping(s);
  const entry = workflowEntry(lifecycle, clock, runs);
  const shutdown = new Shutdown({
    ...{ lifecycle, executions, queue, clock, logger, entry },
    release: s.release,
  });
  const workers = new Workers(
    {
      ...{ claims, leases, self, clock, leaseMs, lifecycle, logger, executions, flows },
      queues: stores.queueClaims,
      execute: (claimed, slot) => runs.executeClaimed(claimed, slot),
      tend: (workflows) => timekeeper.tend(workflows),
    },
    lifecycle,
    shutdown,
  );
  const reads = new RunReads({
    ...{ queries: stores.queries, values: stores.values, streams: execution.streams },
    store,
    signals,
    runs,
  });
  const replays = new Replays({
    ...{ operator, sources: execution.replaySources, store, reads, runs, codec },
  });
  const services: RuntimeServices = {
    identity: { workerId: s.settings.workerId, container: s.container, dataSource: s.dataSource },
    runs,
    reads,
    operator,
    replays,
    time: timeControls(stores, codec, clock, lifecycle),
    flows: new FlowControls(flows, stores.flowStats, clock),
    workers,
    events,
    shutdown,
    abandonedRuns: abandonedRunsNotice(events, lifecycle, logger),
    streamTokens: s.settings.streamTokens,
  };
  return { services, entry };
}

/**
 * The notice of runs stopped processes left running: a run this runtime resumes is dropped
 * from it, closing prints what is left, and a dead runtime says nothing.
 */
function abandonedRunsNotice(
  events: RuntimeEvents,
  lifecycle: Lifecycle,
  logger: RuntimeSettings['logger'],
): AbandonedRunsNotice {
  const notice = new AbandonedRunsNotice({
    logger,
    delayMs: ABANDONED_RUNS_NOTICE_DELAY_MS,
    claimPrint: claimProcessNotice,
  });
  // A run left running before its first step was recorded starts again rather than resumes.
  const subscriptions = [
    events.on('run.resumed', ({ runId }) => notice.resumed(runId)),
    events.on('run.started', ({ runId }) => notice.resumed(runId)),
  ];
  const stop = (): void => subscriptions.forEach((subscription) => subscription.dispose());
  lifecycle.watchDeath(() => {
    stop();
    notice.cancel();
  });
  lifecycle.onClosed(() => {
    stop();
    notice.flush();
  });
  return notice;
}

/**
 * The timekeeper (timers, schedules, deadlines, pruning) and the lease keeper, which renews
 * this runtime's leases until it closes and cancels overdue runs on its beat.
 */
function startTimekeeping(s: RuntimeFloorSettings): Timekeeper {
  const { stores, execution, codec, lifecycle } = s;
  const { clock, logger, leaseMs } = s.settings;
  const { runs: store, leases, runClaims: queue } = stores;
  const { events, executions, flows } = execution;
  const timekeeper = new Timekeeper({
    ...{ store, schedules: stores.schedules, cancellation: stores.cancellation },
    ...{ codec, clock, events, logger, pruner: stores.pruner, flows },
    queueAdmission: stores.queueAdmission,
    cancelledHere: (runId, error) => executions.cancelLocal(runId, error),
  });
  keepLeases(
    new LeaseKeeper({
      ...{ leases, queue, executions, codec, clock, lifecycle, logger, leaseMs },
      cancelOverdue: () => timekeeper.cancelOverdue(),
    }),
    lifecycle,
  );
  return timekeeper;
}

/** Renews this runtime's leases until it closes. */
function keepLeases(keeper: LeaseKeeper, lifecycle: Lifecycle): void {
  keeper.start();
  lifecycle.onClosed(() => keeper.stop());
}

/** Schedules and pruning, as operators reach them. */
function timeControls(
  stores: RuntimeStores,
  codec: Codec,
  clock: Clock,
  lifecycle: Lifecycle,
): TimeControls {
  return new TimeControls(
    new Schedules(stores.schedules, codec, clock),
    stores.pruner,
    clock,
    lifecycle,
  );
}

/** How workflows called outside any run reach this runtime while it is open. */
function workflowEntry(lifecycle: Lifecycle, clock: Clock, runs: Runs): WorkflowEntry {
  return {
    get isOpen() {
      return lifecycle.isOpen;
    },
    clock,
    callWorkflow: (call) => runs.callWorkflow(call),
  };
}
