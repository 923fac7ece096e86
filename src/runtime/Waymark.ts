import { randomBytes } from 'node:crypto';
import { container as rootContainer } from 'tsyringe';
import type { DataSource } from 'typeorm';
import { Codec } from '../codec/Codec';
import { readDecoratedClasses } from '../decorators/metadata';
import { compileClass } from '../decorators/Plans';
import { Lifecycle } from '../ground/Lifecycle';
import { localHost, localProcess, markAlive, markDead } from '../ground/ProcessIdentity';
import { guardPostgresPool } from '../store/connection/guardPostgresPool';
import { applyMigrations } from '../store/migrations/applyMigrations';
import { openDataSource } from '../store/connection/openDataSource';
import { isDataSource } from '../store/connection/typeormModule';
import { Database } from '../store/connection/Database';
import { Stores } from '../store/Stores';
import { assertToolCallAwaited } from '../model/toolApprovalSignals';
import './dispatch';
import { explainingResolution } from './explainResolutionError';
import { buildOperations } from './execution/buildOperations';
import { Executions } from './execution/Executions';
import { FlowRegistry } from './execution/FlowRegistry';
import { LimiterGate } from './execution/LimiterGate';
import { RunAcquirer } from './execution/RunAcquirer';
import { RunExecution } from './execution/RunExecution';
import { RunObserver } from './execution/RunObserver';
import { HeldRunNotices } from './HeldRunNotices';
import { LeaseKeeper } from './LeaseKeeper';
import { OperatorActions } from './OperatorActions';
import { Runs } from './Runs';
import { assertNoTransactionalSteps } from './assertNoTransactionalSteps';
import { reportAbandonedRuns } from './reportAbandonedRuns';
import { logEvents, RuntimeEvents } from './execution/RuntimeEvents';
import type { RuntimeOptions } from './RuntimeOptions';
import { RuntimeRegistry, type WorkflowEntry } from './RuntimeRegistry';
import { resolveSettings, type RuntimeSettings } from './RuntimeSettings';
import { Shutdown } from './Shutdown';
import { buildTimeParts } from './timeParts';
import { StepInterceptor } from './StepInterceptor';
import { WaymarkRuntime } from './WaymarkRuntime';
import type { RuntimeParts } from './RuntimeParts';
import { WorkflowContext } from './WorkflowContext';

/**
 * Entry point: creates runtimes.
 *
 * @example
 * ```ts
 * const runtime = await Waymark.create({ database: 'sqlite:./waymark.db' });
 * const agent = container.resolve(ResearchAgent);
 * const report = await agent.research('durable execution'); // checkpointed, resumable
 * ```
 */
export const Waymark = {
  /**
   * Opens the database, applies migrations (unless `migrate: false`), registers the
   * runtime, `StepInterceptor` and `WorkflowContext` in the container, and checks the
   * decorators of every class loaded so far.
   */
  async create(options: RuntimeOptions): Promise<WaymarkRuntime> {
    return createRuntime(options, new Lifecycle());
  },
};

/** @internal Builds the runtime object around its parts (the testing kit subclasses it). */
export type RuntimeFactory<R extends WaymarkRuntime> = (parts: RuntimeParts) => R;

/** @internal Creates a runtime with a given lifecycle (the testing kit kills it). */
export async function createRuntime<R extends WaymarkRuntime = WaymarkRuntime>(
  options: RuntimeOptions,
  lifecycle: Lifecycle,
  build: RuntimeFactory<R> = (parts) => new WaymarkRuntime(parts) as R,
): Promise<R> {
  const settings = resolveSettings(options);
  for (const Class of readDecoratedClasses()) {
    compileClass(Class);
    if (!isDataSource(options.database)) assertNoTransactionalSteps(Class);
  }
  // Start-up rides through an outage as every statement does (storeRetryTimeout).
  const retry = { retryTimeoutMs: settings.storeRetryMs };
  const opened = await openDataSource(options.database, retry);
  try {
    if (settings.migrate) await applyMigrations(opened.dataSource, retry.retryTimeoutMs);
  } catch (error) {
    if (opened.owned) await opened.dataSource.destroy();
    throw error;
  }
  const release = async (): Promise<void> => {
    if (opened.owned && opened.dataSource.isInitialized) await opened.dataSource.destroy();
  };
  const parts = assemble(options, settings, lifecycle, opened.dataSource, release);
  const runtime = build(parts);
  parts.container.register(WaymarkRuntime, { useValue: runtime });
  if (!parts.container.isRegistered(WorkflowContext, true)) {
    parts.container.register(WorkflowContext, { useValue: new WorkflowContext() });
  }
  if (options.logEvents) logEvents(parts.events, settings.logger);
  RuntimeRegistry.activate(parts.entry);
  await reportAbandonedRuns(parts.runs, settings.logger);
  return runtime;
}

/** Builds every part of a runtime in dependency order, each given what it uses. */
function assemble(
  options: RuntimeOptions,
  settings: RuntimeSettings,
  lifecycle: Lifecycle,
  dataSource: DataSource,
  release: () => Promise<void>,
): RuntimeParts {
  const { clock, logger, leaseMs } = settings;
  const container = options.container ?? rootContainer;
  const resolveInstance = explainingResolution(
    options.resolveInstance ?? ((Class) => container.resolve(Class)),
  );
  const codec = new Codec({ maxValueBytes: settings.maxValueBytes });
  guardPostgresPool(dataSource, logger);
  const runtimeId = randomBytes(6).toString('hex');
  const self = { owner: settings.workerId, host: localHost(), process: localProcess(runtimeId) };
  const database = new Database(dataSource, lifecycle, { timeoutMs: settings.storeRetryMs });
  const stores = new Stores(database, {
    lifecycle,
    holder: self.process,
    decode: (text, path) => codec.decode(text, path),
    admitSignal: assertToolCallAwaited,
  });
  const { runs: store, leases, runClaims: queue } = stores;
  const events = new RuntimeEvents(logger);
  const flows = new FlowRegistry();
  const limiters = new LimiterGate({
    slots: stores.limiterSlots,
    flows,
    clock,
    lifecycle,
    events,
    logger,
    leaseMs,
  });
  markAlive(runtimeId);
  lifecycle.watchDeath(() => markDead(runtimeId));
  lifecycle.onClosed(() => markDead(runtimeId));

  const operations = buildOperations({
    store,
    stores,
    queue,
    codec,
    clock,
    events,
    hooks: options.hooks ?? {},
    lifecycle,
    invoker: container.resolve(StepInterceptor),
    self,
    durableDelayMs: settings.durableDelayMs,
    idempotencyWaitMs: settings.idempotencyWaitMs,
    sharesApplicationDataSource: isDataSource(options.database),
    startChild: (call, opts) => runs.startAndAwait(call, opts),
    executingHere: (runId) => executions.find(runId) !== undefined,
    limiters,
  });
  const { streams } = operations;
  for (const end of [
    'run.completed',
    'run.failed',
    'run.cancelled',
    'run.needs_attention',
  ] as const) {
    events.on(end, ({ runId }) => streams.runEnded(runId));
  }
  const execution = new RunExecution({
    operations,
    store,
    queue,
    codec,
    clock,
    events,
    lifecycle,
    logger,
  });
  const observer = new RunObserver(store, codec, clock, lifecycle, self);
  const executions = new Executions(
    (state, resumed) => execution.execute(state, resumed),
    (runId, stop) => observer.observe(runId, stop),
  );
  const time = buildTimeParts({
    stores,
    codec,
    clock,
    lifecycle,
    logger,
    events,
    executions,
    flows,
  });
  const notices = new HeldRunNotices(logger, clock);
  const acquirer = new RunAcquirer({
    store,
    leases,
    codec,
    clock,
    self,
    leaseMs,
    onHeld: (row) => notices.heldElsewhere(row),
  });
  const runs = new Runs({
    store,
    queueAdmission: stores.queueAdmission,
    leases,
    queue,
    codec,
    clock,
    lifecycle,
    self,
    executions,
    acquirer,
    observer,
    resolveInstance,
    flows,
  });
  const keeper = new LeaseKeeper({
    leases,
    queue,
    executions,
    codec,
    clock,
    lifecycle,
    logger,
    leaseMs,
    cancelOverdue: () => time.timekeeper.cancelOverdue(),
  });
  keeper.start();
  lifecycle.onClosed(() => keeper.stop());
  const entry: WorkflowEntry = {
    get isOpen() {
      return lifecycle.isOpen;
    },
    clock,
    callWorkflow: (call) => runs.callWorkflow(call),
  };
  return {
    workerId: settings.workerId,
    container,
    dataSource,
    store,
    stores,
    queries: stores.queries,
    codec,
    clock,
    events,
    lifecycle,
    resolveInstance,
    runs,
    streams,
    operator: new OperatorActions({
      control: stores.control,
      cancellation: time.cancellation,
      runs,
      executions,
      codec,
      clock,
      events,
      self,
      leaseMs,
    }),
    workerDeps: {
      queue,
      leases,
      self,
      clock,
      leaseMs,
      lifecycle,
      logger,
      execute: (row, claim) => runs.adoptClaimed(row, claim),
      executingHere: (runId) => executions.find(runId) !== undefined,
      flows,
      queues: stores.queueClaims,
      tend: (workflows) => time.timekeeper.tend(workflows),
    },
    entry,
    flows,
    time,
    shutdown: new Shutdown({ lifecycle, executions, queue, clock, logger, release }),
    release,
  };
}
