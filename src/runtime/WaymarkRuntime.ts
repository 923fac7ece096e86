import { randomUUID } from 'node:crypto';
import type { DependencyContainer } from 'tsyringe';
import type { DataSource } from 'typeorm';
import { compileClass } from '../decorators/Plans';
import type { Constructor } from '../model/Constructor';
import type { HistoryPageOptions } from '../model/HistoryPage';
import { assertRunId } from '../model/identifiers';
import type { Disposable } from '../ground/Disposable';
import type { Lifecycle } from '../ground/Lifecycle';
import type { ListRunsOptions, RunPage, StepRecord } from '../model/RunRecords';
import { RunHandle, type RunAccess } from './RunHandle';
import { runAccess } from './runAccess';
import type { AnyListener, WaymarkEventName, WaymarkEvents } from './execution/RuntimeEvents';
import { RuntimeRegistry } from './RuntimeRegistry';
import { closeOnSignals } from './closeOnSignals';
import { workflowPlan } from './workflowPlan';
import type { ForkOptions, ResumeOptions } from './OperatorActions';
import { Worker, type WorkerHandle, type WorkerOptions } from './Worker';
import type { RuntimeParts } from './RuntimeParts';
import type { ArgsOf, AsyncMethodOf, ResultOf } from './WorkflowMethod';
import type { StartOptions } from './StartOptions';
import type { ReadStreamOptions, StreamEntries } from './streams/StreamEntry';
import type { StreamSummary } from '../model/StreamSummary';
import { timingOf } from './startTiming';
import { RuntimeTimeMethods } from './RuntimeTimeMethods';

export type { AsyncMethodOf } from './WorkflowMethod';
export type { RuntimeParts } from './RuntimeParts';

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
export class WaymarkRuntime extends RuntimeTimeMethods {
  private closing: Promise<void> | undefined;
  private readonly access: RunAccess;

  /** @internal Use `Waymark.create()`. */
  constructor(parts: RuntimeParts) {
    super(parts);
    this.access = runAccess(parts);
  }

  /** This process's identity in run ownership. */
  get workerId(): string {
    return this.parts.workerId;
  }

  /** The container workflow classes are resolved from. */
  get container(): DependencyContainer {
    return this.parts.container;
  }

  /** The TypeORM DataSource runs are stored in. */
  get dataSource(): DataSource {
    return this.parts.dataSource;
  }

  /** @internal */
  protected get lifecycle(): Lifecycle {
    return this.parts.lifecycle;
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
    Class: Constructor<C>,
    method: K,
    args: ArgsOf<C, K>,
    options: StartOptions = {},
  ): Promise<RunHandle<ResultOf<C, K>>> {
    if (options.runId !== undefined) assertRunId(options.runId, 'start(): runId');
    const plan = workflowPlan(Class, method);
    const instance = this.parts.resolveInstance(Class);
    const timing = timingOf(options, this.parts.clock.now());
    const started = await this.parts.runs.start(
      { instance, plan, args },
      {
        ...options,
        timing,
      },
    );
    return new RunHandle(started.runId, this.access);
  }

  /** Starts (or finds) the run and waits for its result. */
  async run<C extends object, K extends AsyncMethodOf<C>>(
    Class: Constructor<C>,
    method: K,
    args: ArgsOf<C, K>,
    options: StartOptions = {},
  ): Promise<ResultOf<C, K>> {
    return (await this.start(Class, method, args, options)).result();
  }

  /** A handle on a stored run by id. */
  handle<T = unknown>(runId: string): RunHandle<T> {
    assertRunId(runId, 'handle(): runId');
    return new RunHandle<T>(runId, this.access);
  }

  /**
   * The run's step records in sequence order: all of them, or with `page` one page of at
   * most `limit` (default 100, at most 1000) from `from`, in bounded queries whatever the
   * length of the history.
   *
   * @example
   * ```ts
   * for (let page = await runtime.history(id, { limit: 500 }); page.length > 0; ) {
   *   for (const step of page) console.log(step.seq, step.name, step.status);
   *   page = await runtime.history(id, { from: page.at(-1)!.seq + 1, limit: 500 });
   * }
   * ```
   */
  history(runId: string, page?: HistoryPageOptions): Promise<StepRecord[]> {
    return this.parts.queries.history(runId, page);
  }

  /**
   * Stream `name` of run `runId` (`ctx.stream(name)`): stored entries from offset `from`, then
   * live ones, until the stream closes or the run ends; reconnecting with `from` = last offset
   * + 1 gives no duplicate and no gap. `RunNotFoundError` (when iterated) for an unknown run.
   * @example `for await (const { chunk, restart } of runtime.readStream(id, 'llm')) show(chunk);`
   */
  readStream<T>(runId: string, name: string, options?: ReadStreamOptions): StreamEntries<T> {
    return this.parts.streams.read<T>(runId, name, options);
  }

  /** The streams a run has written to, by name, with their length and whether closed. */
  streams(runId: string): Promise<StreamSummary[]> {
    return this.parts.streams.list(runId);
  }

  /** Stored runs, newest first, filtered and paged. */
  list(options?: ListRunsOptions): Promise<RunPage> {
    return this.parts.queries.list(options);
  }

  /**
   * Resumes, here, every run a stopped process left behind: `running` runs whose lease
   * lapsed, whose holder on this host no longer exists, or that this worker id owned before
   * a restart, and `waiting` runs that are due. Returns a handle per resumed run. A worker
   * (`startWorker`) does this continuously.
   */
  async recover(options: { versions?: string[] } = {}): Promise<RunHandle[]> {
    const resumed = await this.parts.runs.recover(options);
    return resumed.map((runId) => new RunHandle(runId, this.access));
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
  startWorker(options?: WorkerOptions): WorkerHandle {
    this.lifecycle.assertOpen('start a worker');
    const worker = new Worker(this.parts.workerDeps, options);
    this.parts.shutdown.addWorker(worker);
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
    const { codec, stores, clock, runs } = this.parts;
    const encoded = codec.encode(payload, 'payload');
    await stores.signals.send(runId, name, encoded, clock.now());
    runs.wake(runId);
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
  async retry<T = unknown>(runId: string, options: ResumeOptions = {}): Promise<RunHandle<T>> {
    await this.parts.operator.retry(runId, options);
    return this.handle<T>(runId);
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
    options: ResumeOptions = {},
  ): Promise<RunHandle<T>> {
    await this.parts.operator.resolveStep(runId, value, options);
    return this.handle<T>(runId);
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
  async fork<T = unknown>(runId: string, options: ForkOptions): Promise<RunHandle<T>> {
    const newRunId = options.newRunId ?? `${runId}:fork-${randomUUID().slice(0, 8)}`;
    await this.parts.operator.fork(runId, newRunId, options.fromSeq, options);
    return this.handle<T>(newRunId);
  }

  /**
   * Ends a run that has not ended. A process executing it stops at its next step
   * boundary (here at once: the running step's `ctx.signal` aborts) and writes nothing more.
   */
  cancel(runId: string, reason?: string): Promise<void> {
    return this.parts.operator.cancel(runId, reason);
  }

  /** Checks the decorators of classes up front; misuse throws a `ConfigurationError`. */
  register(...classes: Constructor[]): void {
    for (const Class of classes) compileClass(Class);
  }

  /** Listens to every runtime event (name and payload) until the returned disposable is disposed. */
  onAny(listener: AnyListener): Disposable {
    return this.parts.events.onAny(listener);
  }

  /** Listens to runtime events until the returned disposable is disposed. */
  on<K extends WaymarkEventName>(
    event: K,
    listener: (payload: WaymarkEvents[K]) => void,
  ): Disposable {
    return this.parts.events.on(event, listener);
  }

  /**
   * Stops accepting work, waits up to `grace` for runs executing here to finish, and
   * closes the database connection if waymark opened it. Runs still executing after the
   * grace period are handed back to the queue, resumable by another process at once.
   */
  close(options: { grace?: number } = {}): Promise<void> {
    this.closing ??= this.shutdownNow(options.grace ?? 10_000);
    return this.closing;
  }

  /**
   * On SIGTERM or SIGINT (a deploy, Ctrl-C): `close({ grace })` — stop claiming, let steps in
   * flight finish, hand every run back to the queue — then exit the process. Opt-in.
   */
  installSignalHandlers(options: { grace?: number; exit?: boolean } = {}): Disposable {
    return closeOnSignals(() => this.close({ grace: options.grace }), options.exit ?? true);
  }

  private shutdownNow(graceMs: number): Promise<void> {
    RuntimeRegistry.deactivate(this.parts.entry);
    return this.parts.shutdown.run(graceMs);
  }
}
