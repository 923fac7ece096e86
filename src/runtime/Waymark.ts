import { hostname } from 'node:os';
import { randomBytes } from 'node:crypto';
import { container as rootContainer } from 'tsyringe';
import { DataSource } from 'typeorm';
import { readClassPolicies, readDecoratedClasses, type AnyClass } from '../decorators/metadata';
import { validateClassPolicies } from '../decorators/validateClassPolicies';
import { ConfigurationError } from '../errors/ConfigurationError';
import { parseDuration } from '../ground/Duration';
import { Codec } from '../codec/Codec';
import { Migrator } from '../store/Migrator';
import { openDataSource } from '../store/openDataSource';
import { RunControl } from '../store/RunControl';
import { RunQueries } from '../store/RunQueries';
import { WorkQueue } from '../store/WorkQueue';
import { RunStore } from '../store/RunStore';
import { StoreConnection } from '../store/StoreConnection';
import { guardPostgresPool } from '../store/guardPostgresPool';
import { SystemClock } from '../ground/Clock';
import { LeaseKeeper } from './LeaseKeeper';
import { Lifecycle } from '../ground/Lifecycle';
import { quietConsoleLogger } from '../ground/Logger';
import { OutcomeWaiter } from './OutcomeWaiter';
import { RunExecutor } from './RunExecutor';
import { RunLauncher } from './RunLauncher';
import { logEvents, RuntimeEvents } from './RuntimeEvents';
import { RUNTIME_KERNEL, type RuntimeKernel } from './RuntimeKernel';
import type { RuntimeOptions } from './RuntimeOptions';
import { RuntimeRegistry } from './RuntimeRegistry';
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

/** @internal Creates a runtime with a given lifecycle (the testing kit kills it). */
export async function createRuntime<R extends WaymarkRuntime = WaymarkRuntime>(
  options: RuntimeOptions,
  lifecycle: Lifecycle,
  build: RuntimeFactory<R> = (...args) => new WaymarkRuntime(...args) as R,
): Promise<R> {
  const settings = resolveSettings(options);
  for (const Class of readDecoratedClasses()) {
    validateClassPolicies(Class);
    if (!(options.database instanceof DataSource)) assertNoTransactionalSteps(Class);
  }
  const opened = await openDataSource(options.database);
  try {
    if (settings.migrate) await new Migrator(opened.dataSource).migrate();
  } catch (error) {
    if (opened.owned) await opened.dataSource.destroy();
    throw error;
  }
  const userContainer = options.container ?? rootContainer;
  const scope = userContainer.createChildContainer();
  const codec = new Codec({ maxValueBytes: settings.maxValueBytes });
  guardPostgresPool(opened.dataSource, settings.logger);
  const connection = new StoreConnection(opened.dataSource, lifecycle, {
    timeoutMs: settings.storeRetryMs,
  });
  const store = new RunStore(connection);
  const kernel = {
    store,
    queries: new RunQueries(store, codec),
    control: new RunControl(connection, lifecycle),
    queue: new WorkQueue(store),
    codec,
    clock: settings.clock,
    events: new RuntimeEvents(settings.logger),
    hooks: options.hooks ?? {},
    lifecycle,
    logger: settings.logger,
    workerId: settings.workerId,
    leaseMs: settings.leaseMs,
    durableDelayMs: settings.durableDelayMs,
    idempotencyWaitMs: settings.idempotencyWaitMs,
    sharesApplicationDataSource: options.database instanceof DataSource,
    startedAt: settings.clock.now(),
    container: userContainer,
    resolveInstance: options.resolveInstance ?? ((Class) => userContainer.resolve(Class)),
  } as Partial<Mutable<RuntimeKernel>> as Mutable<RuntimeKernel>;
  scope.register(RUNTIME_KERNEL, { useValue: kernel });
  kernel.launcher = new RunLauncher(kernel);
  kernel.executor = new RunExecutor(kernel);
  kernel.waiter = new OutcomeWaiter(kernel);
  kernel.interceptor = scope.resolve(StepInterceptor);

  const runtime = build(
    kernel,
    { dataSource: opened.dataSource, destroy: opened.owned },
    lifecycle,
  );
  userContainer.register(WaymarkRuntime, { useValue: runtime });
  if (!userContainer.isRegistered(WorkflowContext, true)) {
    userContainer.register(WorkflowContext, { useValue: new WorkflowContext() });
  }
  if (options.logEvents) logEvents(kernel.events, settings.logger);
  const leases = new LeaseKeeper(kernel);
  leases.start();
  lifecycle.onClosed(() => leases.stop());
  RuntimeRegistry.activate(kernel);
  return runtime;
}

/** @internal Builds the runtime object around a kernel (the testing kit subclasses it). */
export type RuntimeFactory<R extends WaymarkRuntime> = (
  ...args: ConstructorParameters<typeof WaymarkRuntime>
) => R;

type Mutable<T> = { -readonly [K in keyof T]: T[K] };

function resolveSettings(options: RuntimeOptions) {
  if (!options || typeof options !== 'object' || options.database === undefined) {
    throw new ConfigurationError(
      "Waymark.create() needs { database }, e.g. { database: 'sqlite:./waymark.db' }",
    );
  }
  const maxValueBytes = options.maxValueBytes ?? 1024 * 1024;
  if (!Number.isInteger(maxValueBytes) || maxValueBytes < 1024) {
    throw new ConfigurationError(
      `Waymark.create(): maxValueBytes must be an integer ≥ 1024, got ${String(maxValueBytes)}`,
    );
  }
  const workerId =
    options.workerId ?? `${hostname()}:${process.pid}:${randomBytes(3).toString('hex')}`;
  if (typeof workerId !== 'string' || workerId.length === 0 || workerId.length > 255) {
    throw new ConfigurationError(
      'Waymark.create(): workerId must be a non-empty string of at most 255 characters',
    );
  }
  return {
    maxValueBytes,
    workerId,
    leaseMs: parseDuration(options.leaseDuration ?? '30s', 'Waymark.create(): leaseDuration'),
    storeRetryMs: parseDuration(
      options.storeRetryTimeout ?? '30s',
      'Waymark.create(): storeRetryTimeout',
    ),
    idempotencyWaitMs: parseDuration(
      options.idempotencyWait ?? '30s',
      'Waymark.create(): idempotencyWait',
    ),
    durableDelayMs: parseDuration(
      options.durableDelayThreshold ?? '30s',
      'Waymark.create(): durableDelayThreshold',
    ),
    clock: options.clock ?? new SystemClock(),
    logger: options.logger ?? quietConsoleLogger,
    migrate: options.migrate ?? true,
  };
}

/** Transactional steps commit with the application's rows, so they need its DataSource. */
function assertNoTransactionalSteps(Class: AnyClass): void {
  const transactional = readClassPolicies(Class).find((p) => p.step?.transactional);
  if (!transactional) return;
  throw new ConfigurationError(
    `@Step on ${Class.name}.${transactional.methodName} is transactional, but Waymark.create() was given a ` +
      "URL or options, so waymark would open a database of its own; pass the application's TypeORM DataSource: " +
      'Waymark.create({ database: dataSource })',
  );
}
