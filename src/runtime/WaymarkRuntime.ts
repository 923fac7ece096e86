import type { AnyClass } from '../decorators/metadata';
import type { DataSource } from 'typeorm';
import type { DependencyContainer } from 'tsyringe';
import { readMethodPolicies, type MethodPolicies } from '../decorators/metadata';
import { validateClassPolicies } from '../decorators/validateClassPolicies';
import { randomUUID } from 'node:crypto';
import { ConfigurationError } from '../errors/ConfigurationError';
import { RunCancelledError } from '../errors/RunCancelledError';
import { WorkflowNotRegisteredError } from '../errors/WorkflowNotRegisteredError';
import type { Claim } from '../store/RunControl';
import type { ListRunsOptions, RunPage, StepRecord } from '../store/RunQueries';
import type { Disposable } from '../ground/Disposable';
import type { Lifecycle } from '../ground/Lifecycle';
import { findWorkflow } from '../decorators/WorkflowRegistry';
import { SignalStore } from '../store/SignalStore';
import { RunHandle } from './RunHandle';
import { Worker, type WorkerOptions } from './Worker';
import type { AnyListener, WaymarkEventName, WaymarkEvents } from './RuntimeEvents';
import type { RuntimeKernel } from './RuntimeKernel';
import { RuntimeRegistry } from './RuntimeRegistry';

/** Options of {@link WaymarkRuntime.start}. */
export interface StartOptions {
  /** Use this run id instead of the one `@Workflow({ id })` derives or a new UUID. */
  runId?: string;
  /** Record the run as `pending` for a worker (any process) instead of executing it here. */
  queue?: boolean;
}

/** Operator actions: `queue: true` leaves the run `pending` for a worker instead of continuing it here. */
export interface QueueOption {
  queue?: boolean;
}

/** Method names of `C` that return promises: the candidates for a workflow. */
export type AsyncMethodOf<C> = {
  [K in keyof C]: C[K] extends (...args: any[]) => Promise<unknown> ? K : never;
}[keyof C] &
  string;

type ArgsOf<C, K extends keyof C> = C[K] extends (...args: infer A) => unknown ? A : never;
type ResultOf<C, K extends keyof C> = C[K] extends (...args: any[]) => Promise<infer R> ? R : never;

const RECOVER_BATCH = 100;

/**
 * A durable-execution runtime bound to one database. Create it with `Waymark.create()`.
 *
 * @example
 * ```ts
 * const runtime = await Waymark.create({ database: 'sqlite:./waymark.db' });
 * const report = await runtime.run(ResearchAgent, 'research', ['durable execution']);
 * await runtime.close();
 * ```
 */
export class WaymarkRuntime {
  private closing: Promise<void> | undefined;
  private readonly workers = new Set<Worker>();

  /** @internal Use `Waymark.create()`. */
  constructor(
    protected readonly kernel: RuntimeKernel,
    protected readonly owned: { dataSource: DataSource; destroy: boolean },
    protected readonly lifecycle: Lifecycle,
  ) {}

  /** This process's identity in run ownership. */
  get workerId(): string {
    return this.kernel.workerId;
  }

  /** The container workflow classes are resolved from. */
  get container(): DependencyContainer {
    return this.kernel.container;
  }

  /** The TypeORM DataSource runs are stored in. */
  get dataSource(): DataSource {
    return this.owned.dataSource;
  }

  /**
   * Starts (or finds) the run of `Class.method(...args)` and returns its handle once the
   * run is durably recorded; it executes in the background.
   *
   * @example
   * ```ts
   * const handle = await runtime.start(ProcurementAgent, 'procure', [request]);
   * ```
   */
  async start<C extends object, K extends AsyncMethodOf<C>>(
    Class: new (...deps: any[]) => C,
    method: K,
    args: ArgsOf<C, K>,
    options: StartOptions = {},
  ): Promise<RunHandle<ResultOf<C, K>>> {
    const policies = this.workflowPolicies(Class, method);
    const instance = this.kernel.resolveInstance(Class) as C;
    const launch = await this.kernel.launcher.launch(
      { instance, declaringClass: Class, policies, args: args },
      { runId: options.runId, queue: options.queue },
    );
    return new RunHandle(launch.runId, this.kernel);
  }

  /** Starts (or finds) the run and waits for its result. */
  async run<C extends object, K extends AsyncMethodOf<C>>(
    Class: new (...deps: any[]) => C,
    method: K,
    args: ArgsOf<C, K>,
    options: StartOptions = {},
  ): Promise<ResultOf<C, K>> {
    return (await this.start(Class, method, args, options)).result();
  }

  /** A handle on a stored run by id. */
  handle<T = unknown>(runId: string): RunHandle<T> {
    return new RunHandle<T>(runId, this.kernel);
  }

  /** The run's step records in sequence order. */
  history(runId: string): Promise<StepRecord[]> {
    return this.kernel.queries.history(runId);
  }

  /** Stored runs, newest first, filtered and paged. */
  list(options?: ListRunsOptions): Promise<RunPage> {
    return this.kernel.queries.list(options);
  }

  /**
   * Resumes, here, every run a stopped process left behind: `running` runs whose lease
   * lapsed (or that this worker id owned before a restart) and `waiting` runs that are
   * due. Returns a handle per resumed run. A worker (`startWorker`) does this continuously.
   */
  async recover(options: { versions?: string[] } = {}): Promise<RunHandle[]> {
    const { store, workerId, launcher, clock } = this.kernel;
    const executing = new Set(launcher.activeRuns().map((r) => r.runId));
    const handles: RunHandle[] = [];
    for (const row of await store.findRecoverable(workerId, clock.now(), RECOVER_BATCH)) {
      if (executing.has(row.id) || !findWorkflow(row.workflow)) continue;
      if (options.versions && !options.versions.includes(row.version ?? '')) continue;
      const launch = await launcher.resumeStored(row);
      handles.push(new RunHandle(launch.runId, this.kernel));
    }
    return handles;
  }

  /**
   * Starts pulling runs from the database: pending, due and abandoned ones, up to
   * `concurrency` at once. Stopped by `close()`.
   *
   * @example
   * ```ts
   * const runtime = await Waymark.create({ database: process.env.DATABASE_URL! });
   * runtime.startWorker({ concurrency: 20 });
   * runtime.installSignalHandlers(); // SIGTERM: finish steps, hand runs over, exit
   * ```
   */
  startWorker(options?: WorkerOptions): Worker {
    this.lifecycle.assertOpen('start a worker');
    const worker = new Worker(this.kernel, options);
    this.workers.add(worker);
    return worker;
  }

  /**
   * Sends signal `name` with `payload` to a run: stored in the same transaction that checks
   * the run exists and has not ended, so it is never lost; a run waiting for it is woken.
   *
   * @example
   * ```ts
   * await runtime.signal('po-1234', 'approval', { approved: true, by: 'dana' });
   * ```
   */
  async signal(runId: string, name: string, payload?: unknown): Promise<void> {
    const encoded = this.kernel.codec.encode(payload, 'payload');
    await new SignalStore(this.kernel.store).send(runId, name, encoded, this.kernel.clock.now());
    this.kernel.waiter.wake(runId);
  }

  /**
   * Puts a `failed` or `needs_attention` run back to work, here and now: the step that
   * stopped it is attempted again with a fresh retry budget (a run stopped by
   * `NonDeterminismError` resumes on the code deployed now).
   *
   * @example
   * ```ts
   * const handle = await runtime.retry('po-1234');
   * await handle.result();
   * ```
   */
  async retry<T = unknown>(runId: string, options: QueueOption = {}): Promise<RunHandle<T>> {
    const epoch = await this.kernel.control.retry(runId, this.claim(options));
    if (!options.queue) this.executeInBackground(runId, epoch);
    return new RunHandle<T>(runId, this.kernel);
  }

  /**
   * Records what an operator found out as the outcome of the step a parked run waits at
   * (`onExhausted: 'intervene'`, `onUnknown: 'intervene'`), and continues the run here.
   *
   * @example
   * ```ts
   * await runtime.resolveStep('po-1234', { receiptId: 'R-889' }); // the ERP did accept it
   * ```
   */
  async resolveStep<T = unknown>(
    runId: string,
    value: unknown,
    options: QueueOption = {},
  ): Promise<RunHandle<T>> {
    const output = this.kernel.codec.encode(value, 'value');
    const epoch = await this.kernel.control.resolveStep(runId, output, this.claim(options));
    if (!options.queue) this.executeInBackground(runId, epoch);
    return new RunHandle<T>(runId, this.kernel);
  }

  /**
   * Time travel: a new run of the same workflow and arguments whose history is a copy of
   * `runId`'s before `fromSeq`; it continues from there on the code deployed now (say, after
   * fixing the prompt an LLM step got wrong). The original run is left as it is; the fork
   * records where it came from.
   *
   * @example
   * ```ts
   * const fork = await runtime.fork('research-42', { fromSeq: 3 }); // re-run from the summary step
   * console.log(await fork.result());
   * ```
   */
  async fork<T = unknown>(
    runId: string,
    options: { fromSeq: number; newRunId?: string } & QueueOption,
  ): Promise<RunHandle<T>> {
    const { fromSeq } = options;
    if (!Number.isInteger(fromSeq) || fromSeq < 0) {
      throw new ConfigurationError(
        `fork(): fromSeq must be a sequence number (an integer ≥ 0), got ${String(fromSeq)}`,
      );
    }
    const newRunId = options.newRunId ?? `${runId}:fork-${randomUUID().slice(0, 8)}`;
    if (newRunId.length === 0 || newRunId.length > 255) {
      throw new ConfigurationError(
        'fork(): newRunId must be a non-empty string of at most 255 characters',
      );
    }
    await this.kernel.control.fork(runId, newRunId, fromSeq, this.claim(options));
    if (!options.queue) this.executeInBackground(newRunId, 1);
    return new RunHandle<T>(newRunId, this.kernel);
  }

  /**
   * Ends a run that has not ended. A process executing it stops at its next step
   * boundary (here at once: the running step's `ctx.signal` aborts) and writes nothing more.
   */
  async cancel(runId: string, reason?: string): Promise<void> {
    const error = new RunCancelledError(runId, reason);
    await this.kernel.control.cancel(
      runId,
      this.kernel.codec.encode(error, 'error'),
      this.kernel.clock.now(),
    );
    this.kernel.launcher.cancelLocal(runId, error);
    this.kernel.events.emit('run.cancelled', { runId, reason });
  }

  private claim(options: QueueOption = {}): Claim {
    const now = this.kernel.clock.now();
    if (options.queue) return { owner: null, leaseUntil: null, now };
    return { owner: this.kernel.workerId, leaseUntil: now + this.kernel.leaseMs, now };
  }

  private executeInBackground(runId: string, epoch: number): void {
    this.kernel.launcher.adoptClaimed(runId, epoch);
  }

  /** Checks the decorators of classes up front; misuse throws a `ConfigurationError`. */
  register(...classes: AnyClass[]): void {
    for (const Class of classes) validateClassPolicies(Class);
  }

  /** Listens to every runtime event (name and payload) until the returned disposable is disposed. */
  onAny(listener: AnyListener): Disposable {
    return this.kernel.events.onAny(listener);
  }

  /** Listens to runtime events until the returned disposable is disposed. */
  on<K extends WaymarkEventName>(
    event: K,
    listener: (payload: WaymarkEvents[K]) => void,
  ): Disposable {
    return this.kernel.events.on(event, listener);
  }

  /**
   * Stops accepting work, waits up to `grace` for runs executing here to finish, and
   * closes the database connection if waymark opened it. Runs still executing after the
   * grace period are left resumable.
   */
  close(options: { grace?: number } = {}): Promise<void> {
    this.closing ??= this.shutdown(options.grace ?? 10_000);
    return this.closing;
  }

  /**
   * On SIGTERM or SIGINT (a deploy, Ctrl-C): `close({ grace })` — stop claiming, let steps in
   * flight finish, hand every run back to the queue — then exit the process. Opt-in.
   */
  installSignalHandlers(options: { grace?: number; exit?: boolean } = {}): Disposable {
    const onSignal = (): void => {
      void this.close({ grace: options.grace }).finally(() => {
        if (options.exit ?? true) process.exit(0);
      });
    };
    process.once('SIGTERM', onSignal);
    process.once('SIGINT', onSignal);
    return {
      dispose: () => {
        process.off('SIGTERM', onSignal);
        process.off('SIGINT', onSignal);
      },
    };
  }

  private async shutdown(graceMs: number): Promise<void> {
    this.lifecycle.beginClosing();
    RuntimeRegistry.deactivate(this.kernel);
    await Promise.all([...this.workers].map((worker) => worker.stop()));
    await this.kernel.launcher.drain(graceMs);
    await this.kernel.launcher.handOverRemaining();
    this.lifecycle.markClosed();
    if (this.owned.destroy && this.owned.dataSource.isInitialized)
      await this.owned.dataSource.destroy();
  }

  private workflowPolicies(Class: AnyClass, method: string): MethodPolicies {
    const policies = readMethodPolicies(Class, method);
    if (!policies?.workflow) {
      throw new WorkflowNotRegisteredError(
        `${Class.name}.${method}`,
        'the method is not decorated with @Workflow',
      );
    }
    return policies;
  }
}
