/* eslint-disable max-lines -- the facade: one short delegating method per runtime operation */
import type { DependencyContainer } from 'tsyringe';
import type { Constructor } from '../model/Constructor';
import type { DataSource } from 'typeorm';
import { compileClass } from '../decorators/Plans';
import type { Disposable } from '../ground/Disposable';
import type { HistoryPageOptions } from '../model/HistoryPage';
import { assertRunId } from '../model/identifiers';
import type { ListRunsOptions, RunPage, StepRecord } from '../model/RunRecords';
import type { StreamSummary } from '../model/StreamSummary';
import type { LimiterOptions, QueueOptions } from '../policies/FlowLimits';
import { closeOnSignals } from './closeOnSignals';
import type { AnyListener, WaymarkEventName, WaymarkEvents } from './execution/RuntimeEvents';
import type { LimiterStats, QueueStats } from './FlowControls';
import type { ForkOptions, ResumeOptions } from './OperatorActions';
import type { PruneOptions, PruneResult } from './Pruning';
import type { Replay, ReplayOptions } from './Replays';
import type { RunHandle } from './RunHandle';
import type { RuntimeServices } from './RuntimeServices';
import type { ScheduleInfo, ScheduleOptions } from './Schedules';
import type { SignalOptions, SignalReceipt } from './SignalOptions';
import type { StartOptions } from './StartOptions';
import type { ReadStreamOptions, StreamEntries, StreamTokenOptions } from './streams/StreamEntry';
import type { WorkerHandle, WorkerOptions } from './Worker';
import type { ArgsOf, AsyncMethodOf, ResultOf } from './WorkflowMethod';

export type { AsyncMethodOf } from './WorkflowMethod';

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
  /** @internal Use `Waymark.create()`. */
  constructor(private readonly services: RuntimeServices) {}

  /** This process's identity in run ownership. */
  get workerId(): string {
    return this.services.identity.workerId;
  }

  /** The container workflow classes are resolved from. */
  get container(): DependencyContainer {
    return this.services.identity.container;
  }

  /** The TypeORM DataSource runs are stored in. */
  get dataSource(): DataSource {
    return this.services.identity.dataSource;
  }

  /**
   * Starts (or finds) the run of `Class.method(...args)` and returns its handle once the
   * run is durably recorded; it executes in the background.
   * @example `const handle = await runtime.start(ProcurementAgent, 'procure', [request]);`
   */
  async start<C extends object, K extends AsyncMethodOf<C>>(
    Class: Constructor<C>,
    method: K,
    args: ArgsOf<C, K>,
    options: StartOptions = {},
  ): Promise<RunHandle<ResultOf<C, K>>> {
    const runId = await this.services.runs.startMethod(Class, method, args, options);
    return this.services.reads.handle(runId);
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
    return this.services.reads.handle<T>(runId);
  }

  /**
   * The run's step records in sequence order: all of them, or with `page` one page of at
   * most `limit` (default 100, at most 1000) from `from`, in bounded queries whatever the
   * length of the history.
   * @example
   * ```ts
   * for (let page = await runtime.history(id, { limit: 500 }); page.length > 0; ) {
   *   for (const step of page) console.log(step.seq, step.name, step.status);
   *   page = await runtime.history(id, { from: page.at(-1)!.seq + 1, limit: 500 });
   * }
   * ```
   */
  history(runId: string, page?: HistoryPageOptions): Promise<StepRecord[]> {
    return this.services.reads.history(runId, page);
  }

  /**
   * Stream `name` of run `runId` (`ctx.stream(name)`): stored entries from offset `from`, then
   * live ones, until the stream closes or the run ends; reconnecting with `from` = last offset
   * + 1 gives no duplicate and no gap. `RunNotFoundError` (when iterated) for an unknown run.
   * @example `for await (const { chunk, restart } of runtime.readStream(id, 'llm')) show(chunk);`
   */
  readStream<T>(runId: string, name: string, options?: ReadStreamOptions): StreamEntries<T> {
    return this.services.reads.readStream<T>(runId, name, options);
  }

  /** A signed token reading only stream `name` of run `runId`, until it expires (default 1h). */
  streamToken(runId: string, name: string, options: StreamTokenOptions = {}): string {
    return this.services.streamTokens.sign(runId, name, options);
  }

  /** The streams a run has written to, by name, with their length and whether closed. */
  streams(runId: string): Promise<StreamSummary[]> {
    return this.services.reads.streams(runId);
  }

  /** Stored runs, newest first, filtered and paged. */
  list(options?: ListRunsOptions): Promise<RunPage> {
    return this.services.reads.list(options);
  }

  /**
   * Resumes, here, every run a stopped process left behind: `running` runs whose lease lapsed,
   * whose holder on this host is gone, or that this worker id owned before a restart, and due
   * `waiting` runs; a handle per resumed run. A worker (`startWorker`) does this continuously.
   */
  async recover(options: { versions?: string[] } = {}): Promise<RunHandle[]> {
    this.services.abandonedRuns.cancel();
    return (await this.services.runs.recover(options)).map((id) => this.services.reads.handle(id));
  }

  /**
   * Starts pulling runs from the database: pending, due and abandoned ones, up to
   * `concurrency` at once. Stopped by `close()`.
   * @example `runtime.startWorker({ concurrency: 20 }); runtime.installSignalHandlers();`
   */
  startWorker(options?: WorkerOptions): WorkerHandle {
    this.services.abandonedRuns.cancel();
    return this.services.workers.start(options);
  }

  /**
   * Sends signal `name` with `payload` to a run: stored in the same transaction that checks
   * the run exists and has not ended, so it is never lost; a run waiting for it is woken.
   * With `idempotencyKey`, the run gets one signal per name and key: a repeat (a client's
   * retry, a double click) stores nothing and answers `{ duplicate: true }`, also once the
   * first was taken or the run ended.
   * @example `await runtime.signal('chat-42', 'message', msg, { idempotencyKey: msg.id });`
   */
  async signal(
    runId: string,
    name: string,
    payload?: unknown,
    options?: SignalOptions,
  ): Promise<SignalReceipt> {
    return this.services.runs.signal(runId, name, payload, options);
  }

  /**
   * Puts a `failed` or `needs_attention` run back to work, here and now: the step that
   * stopped it is attempted again with a fresh retry budget (a run stopped by
   * `NonDeterminismError` resumes on the code deployed now).
   * @example `await (await runtime.retry('po-1234')).result();`
   */
  async retry<T = unknown>(runId: string, options: ResumeOptions = {}): Promise<RunHandle<T>> {
    await this.services.operator.retry(runId, options);
    return this.handle<T>(runId);
  }

  /**
   * Records what an operator found out as the outcome of the step a parked run waits at
   * (`onExhausted: 'intervene'`, `onUnknown: 'intervene'`), and continues the run here.
   * @example `await runtime.resolveStep('po-1234', { receiptId: 'R-889' }); // the ERP did accept it`
   */
  async resolveStep<T = unknown>(
    runId: string,
    value: unknown,
    options: ResumeOptions = {},
  ): Promise<RunHandle<T>> {
    await this.services.operator.resolveStep(runId, value, options);
    return this.handle<T>(runId);
  }

  /**
   * Time travel: a new run of the same workflow and arguments whose history is a copy of
   * `runId`'s before `fromSeq`; it continues on the code deployed now (say, after fixing a
   * prompt). The original run is left as it is; the fork records where it came from.
   * @example `const fork = await runtime.fork('research-42', { fromSeq: 3 }); // from the summary step`
   */
  async fork<T = unknown>(runId: string, options: ForkOptions): Promise<RunHandle<T>> {
    return this.handle<T>(await this.services.operator.fork(runId, options));
  }

  /**
   * Replays `runId` from `from` into a new run, to its end on the current code: `override`'s
   * results stand for the original's steps there, unchanged model calls are answered from the
   * recording (unless `callModels`). Returns the run and a `ReplayReport`; the original stays.
   * @example `const { report } = await runtime.replay('research-42', { from: 2, override: { 1: 'notes' } });`
   */
  replay<T = unknown>(runId: string, options: ReplayOptions): Promise<Replay<T>> {
    return this.services.replays.replay<T>(runId, options);
  }

  /** Ends a run that has not ended; a process executing it stops (its step's `ctx.signal` aborts). */
  cancel(runId: string, reason?: string): Promise<void> {
    return this.services.operator.cancel(runId, reason);
  }

  /**
   * Declares a named queue: runs of `@Workflow({ queue: name })` or `start(…, { queue: name })`
   * wait in it for a worker, within its limits. Every process using it declares it alike.
   * @example `runtime.queue('research', { concurrency: 3, rateLimit: { limit: 10, period: '1s' } });`
   */
  queue(name: string, options: QueueOptions = {}): void {
    this.services.flows.queue(name, options);
  }

  /**
   * Declares a named limiter that `@Step({ limiter: name })` attempts pass through: its
   * concurrency and rate hold across every worker; an attempt answered with HTTP 429 and a
   * Retry-After pauses every step under it, in every worker, until then.
   * @example `runtime.limiter('openai', { concurrency: 8, rateLimit: { limit: 500, period: '1m' } });`
   */
  limiter(name: string, options: LimiterOptions = {}): void {
    this.services.flows.limiter(name, options);
  }

  /** Every queue's depth and executing runs (`''` is the default queue), as stored now. */
  queueStats(): Promise<QueueStats[]> {
    return this.services.flows.queueStats();
  }

  /** Every limiter's held slots and stored pause. */
  limiterStats(): Promise<LimiterStats[]> {
    return this.services.flows.limiterStats();
  }

  /**
   * Creates (or redefines) the schedule `name`, stored in the database: on every tick of
   * `cron` in `timezone`, a worker that runs `workflow` starts one run of it with `args` —
   * one run per tick however many workers run (its id is `name@<tick ISO time>`). A cron
   * expression that does not parse or an unknown time zone is refused here.
   * @example `await runtime.schedule('nightly', { cron: '0 2 * * *', workflow: 'reports.nightly', args: [] });`
   */
  schedule(name: string, options: ScheduleOptions): Promise<ScheduleInfo> {
    return this.services.time.define(name, options);
  }

  /** Every stored schedule, by name. */
  schedules(): Promise<ScheduleInfo[]> {
    return this.services.time.list();
  }

  /** Stops starting runs for the schedule until it is resumed. */
  pauseSchedule(name: string): Promise<void> {
    return this.services.time.pause(name);
  }

  /** Starts the paused schedule again from its next tick (ticks while paused are not run). */
  resumeSchedule(name: string): Promise<void> {
    return this.services.time.resume(name);
  }

  /** Deletes the schedule; runs it started stay. False when there was none. */
  deleteSchedule(name: string): Promise<boolean> {
    return this.services.time.delete(name);
  }

  /**
   * Deletes ended runs (and their history) that ended longer ago than `olderThan`, in
   * batches, one sweeper at a time across all processes (`busy: true` when another was at
   * work). `@Workflow({ retention })` makes workers do the same on their own.
   * @example `const { deleted } = await runtime.prune({ olderThan: '30d', status: 'completed' });`
   */
  prune(options: PruneOptions): Promise<PruneResult> {
    return this.services.time.prune(options);
  }

  /** Checks the decorators of classes up front; misuse throws a `ConfigurationError`. */
  register(...classes: Constructor[]): void {
    for (const Class of classes) compileClass(Class);
  }

  /** Listens to every runtime event (name and payload) until the returned disposable is disposed. */
  onAny(listener: AnyListener): Disposable {
    return this.services.events.onAny(listener);
  }

  /** Listens to runtime events until the returned disposable is disposed. */
  on<K extends WaymarkEventName>(
    event: K,
    listener: (payload: WaymarkEvents[K]) => void,
  ): Disposable {
    return this.services.events.on(event, listener);
  }

  /**
   * Stops accepting work, waits up to `grace` for runs executing here to finish, and
   * closes the database connection if waymark opened it. Runs still executing after the
   * grace period are handed back to the queue, resumable by another process at once.
   */
  close(options: { grace?: number } = {}): Promise<void> {
    return this.services.shutdown.close(options.grace ?? 10_000);
  }

  /**
   * On SIGTERM or SIGINT (a deploy, Ctrl-C): `close({ grace })` — stop claiming, let steps in
   * flight finish, hand every run back to the queue — then exit the process. Opt-in.
   */
  installSignalHandlers(options: { grace?: number; exit?: boolean } = {}): Disposable {
    return closeOnSignals(() => this.close({ grace: options.grace }), options.exit ?? true);
  }
}
