import { randomUUID } from 'node:crypto';
import { injectable } from 'tsyringe';
import type { EntityManager } from 'typeorm';
import { inlineStepPlan, type InlineStepOptions } from '../decorators/inlineStepPlan';
import { assertSignalName } from '../model/identifiers';
import type { IsStorable } from '../model/Storable';
import { NotInRunError } from '../errors/NotInRunError';
import { realClock } from '../ground/Clock';
import { parseDuration, type Duration } from '../ground/Duration';
import { RunScope } from './execution/RunScope';
import { boundedAll, type AllOptions } from './fanOut';
import { RuntimeRegistry } from './RuntimeRegistry';
import type { StreamWriter } from './streams/StreamWriter';

/**
 * The current run, as seen from workflow and step code. Stateless: one instance serves
 * every run by reading the run scope of the calling async context, so it can be
 * constructor-injected into a singleton service.
 *
 * @example
 * ```ts
 * @injectable()
 * class Agent {
 *   constructor(private readonly ctx: WorkflowContext, private readonly psp: Payments) {}
 *
 *   @Step()
 *   async charge(order: Order): Promise<Receipt> {
 *     return this.psp.charge(order, { idempotencyKey: this.ctx.idempotencyKey });
 *   }
 * }
 * ```
 */
@injectable()
export class WorkflowContext {
  /** Whether the caller is executing inside a run. */
  get inRun(): boolean {
    return RunScope.current() !== undefined;
  }

  /** Id of the current run. */
  get runId(): string {
    return this.scope('runId').run.runId;
  }

  /** Inside a step: the attempt being executed, from 1. */
  get attempt(): number {
    return this.stepFrame('attempt').attempt;
  }

  /**
   * Inside a step: a key that is the same on every attempt and resume of this step
   * (`${runId}:${seq}` unless `@Idempotent` derives one). Pass it to payment gateways,
   * queues and APIs that deduplicate.
   */
  get idempotencyKey(): string {
    return this.stepFrame('idempotencyKey').idempotencyKey;
  }

  /** Inside a step: aborts when the attempt times out or the run is cancelled. */
  get signal(): AbortSignal {
    return this.stepFrame('signal').signal;
  }

  /**
   * In a `@Step({ transactional: true })`: the EntityManager of the transaction the step's
   * checkpoint commits in. Write business rows through it and they commit (or roll back)
   * with the step, exactly once.
   */
  get entityManager(): EntityManager {
    const manager = this.stepFrame('entityManager').entityManager;
    if (!manager) {
      throw new NotInRunError('WorkflowContext.entityManager', 'step', 'transactional step');
    }
    return manager;
  }

  /**
   * Waits for signal `name` (sent with `runtime.signal(runId, name, payload)`) and returns
   * its payload. A signal already delivered is returned at once; otherwise the run is
   * released to `waiting` — no process holds it — and resumes wherever a worker runs once
   * the signal comes. With `timeout`, `SignalTimeoutError` is thrown when none came in time.
   * Signals with one name queue in order; each wait takes one.
   *
   * @example
   * ```ts
   * try {
   *   const approval = await this.ctx.waitForSignal<Approval>('approval', { timeout: '7d' });
   * } catch (e) {
   *   if (e instanceof SignalTimeoutError) await this.escalate(req);
   * }
   * ```
   */
  waitForSignal<T = unknown>(name: string, options: { timeout?: Duration } = {}): Promise<T> {
    const scope = this.workflowScope('waitForSignal()');
    assertSignalName(name, 'waitForSignal(): name');
    const timeoutMs =
      options.timeout === undefined
        ? undefined
        : parseDuration(options.timeout, 'waitForSignal(): timeout');
    return scope.operations.waitForSignal(scope, name, timeoutMs) as Promise<T>;
  }

  /**
   * A durable timer: in workflow code the wake-up time is stored, and a sleep longer than
   * `durableDelayThreshold` releases the run until then. Outside workflow code (or in a
   * step) it is a plain wait.
   */
  sleep(duration: Duration): Promise<void> {
    const ms = parseDuration(duration, 'sleep()');
    const scope = RunScope.current();
    if (!scope || scope.step) {
      const clock = scope?.operations.clock ?? RuntimeRegistry.current()?.clock ?? realClock;
      return clock.sleep(ms);
    }
    return scope.operations.sleep(scope, ms);
  }

  /**
   * Safe code changes for runs in flight. Put new behaviour behind `if (ctx.patched('id'))`:
   * a run that reaches this point on the new code takes the new branch (and records that it
   * did); a run that had already passed it on the old code gets `false` and replays as before.
   * Once no old run is left, replace the call with `ctx.deprecatePatch('id')` and keep only
   * the new branch; later still, remove it.
   *
   * @example
   * ```ts
   * if (this.ctx.patched('add-audit')) await this.audit(order);
   * await this.ship(order);
   * ```
   */
  patched(id: string): boolean {
    const scope = this.workflowScope('patched()');
    return scope.operations.patched(scope, id);
  }

  /** The second phase of a patch: see {@link WorkflowContext.patched}. */
  deprecatePatch(id: string): void {
    const scope = this.workflowScope('deprecatePatch()');
    scope.operations.deprecatePatch(scope, id);
  }

  /**
   * A writer of the run's durable stream `name`, which clients read while the run is in
   * progress (`runtime.readStream(runId, name)`, the console). Write from a step: chunks are
   * stored in batches (one write per 50 ms or 64 KiB), all of a step's chunks before its
   * checkpoint. A step that executes again (a retry, a resume after a crash) is preceded in
   * the stream by a restart marker, so a reader can drop the partial output.
   *
   * @example
   * ```ts
   * @Step()
   * async answer(question: string): Promise<string> {
   *   const out = this.ctx.stream<string>('llm');
   *   let text = '';
   *   for await (const token of this.llm.stream(question)) {
   *     out.write(token);
   *     text += token;
   *   }
   *   return text;
   * }
   * ```
   */
  stream<T = unknown>(name: string): StreamWriter<T> {
    const scope = this.scope('stream()');
    return scope.operations.stream<T>(scope, name);
  }

  /**
   * Runs `fn` as a durable step named `name`, inline — what DBOS calls `runStep` and Inngest
   * `step.run`: recorded like a `@Step` of that name (its result stored once; replayed on a
   * resume without running `fn`; a rename at its place stops the run with
   * `NonDeterminismError`), with the `@Step` options, `retry` (the `@Retry` options) and the
   * idempotency options (`key`, `scope`). Inside `fn`, `ctx.idempotencyKey`, `ctx.signal`,
   * `ctx.attempt` (and, when `transactional`, `ctx.entityManager`) are the step's. Outside a
   * run, or inside another step, `fn` is simply called.
   *
   * @example
   * ```ts
   * const page = await this.ctx.step('fetch', () => fetch(url).then((r) => r.text()), {
   *   timeout: '30s',
   *   retry: { maxAttempts: 5 },
   * });
   * ```
   */
  step<T>(
    name: string,
    fn: () => Promise<T>,
    ...options: IsStorable<T> extends true
      ? [options?: InlineStepOptions]
      : [
          // The compiler's error shows this key: the result cannot be stored and read back equal.
          {
            'the result of ctx.step must be storable: no functions, symbols, promises or class instances with methods': never;
          },
        ]
  ): Promise<T> {
    const plan = inlineStepPlan(name, options[0] as InlineStepOptions | undefined);
    const scope = RunScope.current();
    if (!scope || scope.step) return new Promise<T>((resolve) => resolve(fn()));
    return scope.operations.step(scope, { plan, args: [], body: fn }) as Promise<T>;
  }

  /**
   * Fan-out: runs `calls`, at most `concurrency` at a time, and resolves with their results in
   * call order (the first failure rejects; no later call is started). Make each call exactly
   * one child workflow (or step) call: each is then recorded in this run at its own place,
   * so a resumed run does not start a child again, it takes its recorded outcome.
   *
   * @example
   * ```ts
   * const reports = await this.ctx.all(
   *   sources.map((source) => () => this.summarize(source)), // summarize is a @Workflow
   *   { concurrency: 10 },
   * );
   * ```
   */
  all<T>(calls: ReadonlyArray<() => Promise<T>>, options?: AllOptions): Promise<T[]> {
    return boundedAll(calls, options);
  }

  /** The current time; in a workflow it is recorded, so a resume sees the same instant. */
  now(): Date {
    return this.recorded('ctx.now', () => new Date(this.clockNow()));
  }

  /** A random number in [0, 1); in a workflow it is recorded, so a resume sees the same value. */
  random(): number {
    return this.recorded('ctx.random', () => Math.random());
  }

  /** A random UUID; in a workflow it is recorded, so a resume sees the same value. */
  uuid(): string {
    return this.recorded('ctx.uuid', () => randomUUID());
  }

  private recorded<T>(name: string, produce: () => T): T {
    const scope = RunScope.current();
    if (!scope || scope.step) return produce();
    return scope.operations.record(scope, name, produce);
  }

  private clockNow(): number {
    const clock = RunScope.current()?.operations.clock ?? RuntimeRegistry.current()?.clock;
    return clock ? clock.now() : Date.now();
  }

  private workflowScope(what: string): RunScope {
    const scope = RunScope.current();
    if (!scope || scope.step) {
      throw new NotInRunError(
        `WorkflowContext.${what}`,
        'step',
        'workflow method (outside any step)',
      );
    }
    return scope;
  }

  private scope(what: string): RunScope {
    const scope = RunScope.current();
    if (!scope) throw new NotInRunError(`WorkflowContext.${what}`, 'run');
    return scope;
  }

  private stepFrame(what: string) {
    const step = RunScope.current()?.step;
    if (!step) throw new NotInRunError(`WorkflowContext.${what}`, 'step');
    return step;
  }
}
