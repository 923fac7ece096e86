import { randomBytes } from 'node:crypto';
import { container as rootContainer } from 'tsyringe';
import { Codec } from '../codec/Codec';
import { readDecoratedClasses } from '../decorators/metadata';
import { compileClass } from '../decorators/Plans';
import { Lifecycle } from '../ground/Lifecycle';
import { localHost, localProcess, markAlive, markDead } from '../ground/ProcessIdentity';
import { applyMigrations } from '../store/migrations/applyMigrations';
import { openDataSource, type OpenedDataSource } from '../store/connection/openDataSource';
import { isDataSource } from '../store/connection/typeormModule';
import './dispatch';
import { assembleRuntime, type RuntimeFloor } from './assembleRuntime';
import { assembleStores } from './assembleStores';
import { assembleExecution } from './execution/assembleExecution';
import { logEvents, RuntimeEvents } from './execution/RuntimeEvents';
import { explainingResolution } from './explainResolutionError';
import { assertNoTransactionalSteps } from './assertNoTransactionalSteps';
import type { RuntimeOptions } from './RuntimeOptions';
import { RuntimeRegistry } from './RuntimeRegistry';
import type { RuntimeServices } from './RuntimeServices';
import { resolveSettings, type RuntimeSettings } from './RuntimeSettings';
import { StepInterceptor } from './StepInterceptor';
import { WaymarkRuntime } from './WaymarkRuntime';
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

/** @internal Builds the runtime object around its services (the testing kit subclasses it). */
export type RuntimeFactory<R extends WaymarkRuntime> = (services: RuntimeServices) => R;

/** @internal Creates a runtime with a given lifecycle (the testing kit kills it). */
export async function createRuntime<R extends WaymarkRuntime = WaymarkRuntime>(
  options: RuntimeOptions,
  lifecycle: Lifecycle,
  build: RuntimeFactory<R> = (services) => new WaymarkRuntime(services) as R,
): Promise<R> {
  const settings = resolveSettings(options);
  for (const Class of readDecoratedClasses()) {
    compileClass(Class);
    if (!isDataSource(options.database)) assertNoTransactionalSteps(Class);
  }
  const opened = await openMigrated(options, settings);
  const release = async (): Promise<void> => {
    if (opened.owned && opened.dataSource.isInitialized) await opened.dataSource.destroy();
  };
  const { services, entry } = assemble(options, settings, lifecycle, opened, release);
  const runtime = build(services);
  const { container } = services.identity;
  container.register(WaymarkRuntime, { useValue: runtime });
  if (!container.isRegistered(WorkflowContext, true)) {
    container.register(WorkflowContext, { useValue: new WorkflowContext() });
  }
  if (options.logEvents) logEvents(services.events, settings.logger);
  RuntimeRegistry.activate(entry);
  if (settings.reportAbandonedRuns) {
    const abandoned = await services.runs.abandonedHere().catch(() => []);
    services.abandonedRuns.defer(abandoned.map((row) => row.id));
  }
  return runtime;
}

/** Opens the database and applies migrations, riding through an outage as every statement does. */
async function openMigrated(
  options: RuntimeOptions,
  settings: RuntimeSettings,
): Promise<OpenedDataSource> {
  const retry = { retryTimeoutMs: settings.storeRetryMs };
  const opened = await openDataSource(options.database, retry);
  try {
    if (settings.migrate) await applyMigrations(opened.dataSource, retry.retryTimeoutMs);
  } catch (error) {
    if (opened.owned) await opened.dataSource.destroy();
    throw error;
  }
  return opened;
}

/**
 * Builds a runtime floor by floor — stores, then execution on them, then the runtime's
 * services on both — each part given the few things it uses.
 */
function assemble(
  options: RuntimeOptions,
  settings: RuntimeSettings,
  lifecycle: Lifecycle,
  { dataSource }: OpenedDataSource,
  release: () => Promise<void>,
): RuntimeFloor {
  const { clock, logger, leaseMs } = settings;
  const container = options.container ?? rootContainer;
  const resolveInstance = explainingResolution(
    options.resolveInstance ?? ((Class) => container.resolve(Class)),
  );
  const codec = new Codec({ maxValueBytes: settings.maxValueBytes });
  const runtimeId = randomBytes(6).toString('hex');
  const self = { owner: settings.workerId, host: localHost(), process: localProcess(runtimeId) };
  markAlive(runtimeId);
  lifecycle.watchDeath(() => markDead(runtimeId));
  lifecycle.onClosed(() => markDead(runtimeId));

  const events = new RuntimeEvents(logger);
  const stores = assembleStores({
    ...{ ...settings, dataSource, lifecycle, codec, events },
    holder: self.process,
  });
  const execution = assembleExecution({
    ...{ stores, codec, clock, logger, lifecycle, self, leaseMs, resolveInstance },
    durableDelayMs: settings.durableDelayMs,
    idempotencyWaitMs: settings.idempotencyWaitMs,
    hooks: options.hooks ?? {},
    invoker: container.resolve(StepInterceptor),
    sharesApplicationDataSource: isDataSource(options.database),
    events,
  });
  return assembleRuntime({
    ...{ stores, execution, settings, codec, lifecycle, self, container, dataSource },
    ...{ resolveInstance, release },
  });
}
