import { inject, injectable } from 'tsyringe';
import { qualifiedName } from '../decorators/metadata';
import { validateClassPolicies } from '../decorators/validateClassPolicies';
import { ConfigurationError } from '../errors/ConfigurationError';
import { LeaseLostError } from '../errors/LeaseLostError';
import { RuntimeClosedError } from '../errors/RuntimeClosedError';
import type { StepRow } from '../store/rows';
import type { ActiveRun } from './ActiveRun';
import { GlobalKeyClaims } from './GlobalKeyClaims';
import { idempotencyKeyFor } from './idempotencyKeyFor';
import type { Settled } from './invokeAttempt';
import { unwrapOutcome } from './RunOutcome';
import type { RunScope, StepFrame } from './RunScope';
import { RUNTIME_KERNEL, type RuntimeKernel } from './RuntimeKernel';
import { StepAttempts } from './StepAttempts';
import type { StepHookPoint } from './StepHooks';
import { StepRecords } from './StepRecords';
import { StepOutcomes } from './StepOutcomes';
import { ChildRuns } from './ChildRuns';
import { DurableWaits } from './DurableWaits';
import type { MethodCall } from './WorkflowCall';

/** A transactional attempt whose checkpoint committed with the body's writes. */
class CommittedWithBody {
  constructor(
    readonly value: unknown,
    readonly row: StepRow,
  ) {}
}

/**
 * Runs every `@Step` call inside a run as a short fixed sequence: next sequence number →
 * recorded outcome? → name check → idempotency key / intent marker → attempts (retry with
 * backoff, timeout) → one checkpoint write. Resolved from the container, so an application
 * can register a subclass (for tracing, say) in its place.
 *
 * @example
 * ```ts
 * @injectable()
 * class TracingInterceptor extends StepInterceptor {
 *   protected override invokeBody(scope: RunScope, call: MethodCall) {
 *     return tracer.startActiveSpan(call.policies.methodName, () => super.invokeBody(scope, call));
 *   }
 * }
 * container.register(StepInterceptor, { useClass: TracingInterceptor });
 * ```
 */
@injectable()
export class StepInterceptor {
  private readonly attempts: StepAttempts;
  private readonly records: StepRecords;
  private readonly keys: GlobalKeyClaims;
  private readonly outcomes: StepOutcomes;
  private readonly children: ChildRuns;
  private readonly waits: DurableWaits;

  constructor(@inject(RUNTIME_KERNEL) protected readonly kernel: RuntimeKernel) {
    this.attempts = new StepAttempts(kernel);
    this.records = new StepRecords(kernel);
    this.keys = new GlobalKeyClaims(kernel);
    this.outcomes = new StepOutcomes(kernel, this.records);
    this.children = new ChildRuns(kernel, this.records);
    this.waits = new DurableWaits(kernel, this.records);
  }

  /** A `@Step` called at the top level of a run. Takes its seq synchronously. */
  interceptStep(scope: RunScope, call: MethodCall): Promise<unknown> {
    const seq = scope.run.nextSeq();
    return this.step(scope, seq, call);
  }

  /** A `@Workflow` called outside any run: start, resume or read back that run. */
  async interceptWorkflow(call: MethodCall): Promise<unknown> {
    const launch = await this.kernel.launcher.launch(call);
    return unwrapOutcome(await this.kernel.waiter.awaitOutcome(launch.runId, launch.outcome));
  }

  /** A `@Workflow` called inside a run: a child run, memoized in the parent like a step. */
  interceptChildWorkflow(scope: RunScope, call: MethodCall): Promise<unknown> {
    const seq = scope.run.nextSeq();
    return this.children.run(scope, seq, call);
  }

  /**
   * A value the workflow must see identically on every replay (`ctx.now()` and friends).
   * Synchronous for the caller; its write completes before the next step's body runs.
   */
  recordValue<T>(scope: RunScope, name: string, produce: () => T): T {
    const { run } = scope;
    run.assertRunnable();
    const seq = run.nextSeq();
    const recorded = run.history.get(seq);
    if (recorded) return this.records.replay(run, seq, name, recorded) as T;
    const value = produce();
    const now = this.kernel.clock.now();
    const { row, settled } = this.records.row(run, seq, name, { ok: true, value }, 1, now, now);
    if (!settled.ok) throw settled.error;
    run.track(this.records.record(run, row));
    return value;
  }

  /** `ctx.waitForSignal()` in workflow code. Takes its seq synchronously. */
  waitForSignal(scope: RunScope, name: string, timeoutMs: number | undefined): Promise<unknown> {
    const seq = scope.run.nextSeq();
    return this.handOver(scope.run).then(() =>
      this.waits.waitForSignal(scope.run, seq, name, timeoutMs),
    );
  }

  /** `ctx.sleep()` in workflow code. Takes its seq synchronously. */
  sleep(scope: RunScope, ms: number): Promise<void> {
    const seq = scope.run.nextSeq();
    return this.handOver(scope.run).then(() => this.waits.sleep(scope.run, seq, ms));
  }

  /**
   * `ctx.patched(id)`: true on the code path a run takes when it reaches this point on new
   * code (recorded as a marker), false for a run whose history shows it passed this point on
   * old code (then nothing is consumed, so the rest of its history still lines up).
   */
  patched(scope: RunScope, id: string): boolean {
    const { run } = scope;
    run.assertRunnable();
    const marker = `patch:${id}`;
    const recorded = run.history.get(run.peekSeq());
    if (recorded && recorded.name !== marker) return false;
    return this.recordValue(scope, marker, () => true);
  }

  /** `ctx.deprecatePatch(id)`: consumes the marker of runs that recorded one, and nothing else. */
  deprecatePatch(scope: RunScope, id: string): void {
    const { run } = scope;
    if (run.history.get(run.peekSeq())?.name === `patch:${id}`) run.nextSeq();
  }

  /** Executes a step body in its own scope. Override to wrap every execution. */
  protected invokeBody(scope: RunScope, call: MethodCall): Promise<unknown> {
    return scope.enter(() => call.policies.original.apply(call.instance, call.args));
  }

  private async step(scope: RunScope, seq: number, call: MethodCall): Promise<unknown> {
    const { run } = scope;
    const step = call.policies.step!;
    run.assertRunnable();
    if (this.kernel.lifecycle.isClosing) await this.handOver(run);
    validateClassPolicies(call.declaringClass);
    const recorded = run.history.get(seq);
    if (recorded?.status === 'started')
      return this.outcomes.unknownOutcome(run, seq, step, recorded);
    if (recorded) return this.records.replay(run, seq, step.name, recorded);
    if (step.transactional) this.assertSharedDataSource(call);

    const { hooks, clock, events, store } = this.kernel;
    const point: StepHookPoint = {
      runId: run.runId,
      seq,
      step: step.name,
      target: qualifiedName(call.policies),
    };
    hooks.beforeStep?.(point);
    if (run.needsFlush()) await run.flush();
    const startedAt = clock.now();
    const { key, global } = idempotencyKeyFor(run.runId, seq, call);
    if (global) {
      const claim = await this.keys.claim(key, run.runId, seq);
      if (!claim.owned)
        return this.outcomes.deduplicated(run, seq, step.name, claim.output, startedAt);
    }
    if (step.atMostOnce) {
      const intent: StepRow = {
        runId: run.runId,
        seq,
        name: step.name,
        status: 'started',
        output: null,
        attempts: 0,
        startedAt,
        finishedAt: null,
      };
      await store.insertStep(intent, run.epoch);
    }
    events.emit('step.started', { runId: run.runId, seq, step: step.name });
    const frame = (attempt: number, signal: AbortSignal): StepFrame => ({
      seq,
      name: step.name,
      idempotencyKey: key,
      attempt,
      signal,
    });
    const outcome = await this.attempts.run({
      run,
      point,
      policy: call.policies.retry,
      timeoutMs: step.timeoutMs,
      body: step.transactional
        ? (attempt, signal) =>
            this.transactionalBody(scope, call, frame(attempt, signal), point, startedAt)
        : (attempt, signal) => this.invokeBody(scope.inStep(frame(attempt, signal)), call),
    });
    this.kernel.lifecycle.assertAlive(`record step "${step.name}"`);
    if (outcome.ok && outcome.value instanceof CommittedWithBody) {
      hooks.afterCommit?.(point);
      return this.finish(
        run,
        seq,
        step.name,
        { ok: true, value: outcome.value.value },
        outcome.value.row,
      );
    }
    hooks.afterEffect?.(point);
    if (outcome.park) {
      if (global) await store.releaseKey(key, run.runId, seq);
      return this.outcomes.park(run, seq, outcome);
    }

    const built = this.records.row(
      run,
      seq,
      step.name,
      outcome,
      outcome.attempts,
      startedAt,
      clock.now(),
    );
    let stored: StepRow;
    if (step.atMostOnce) {
      await store.completeIntent(built.row, run.epoch);
      stored = built.row;
    } else if (global) {
      stored = await store.transaction(
        `record step #${seq} of run "${run.runId}"`,
        async (tx) => {
          const row = await this.records.record(run, built.row, tx);
          if (row.status === 'completed')
            await tx.completeKey(key, run.runId, seq, row.output ?? '', clock.now());
          else await tx.releaseKey(key, run.runId, seq);
          return row;
        },
        { retry: true },
      );
    } else {
      stored = await this.records.record(run, built.row);
    }
    hooks.afterCommit?.(point);
    if (stored !== built.row) return this.records.replay(run, seq, step.name, stored);
    return this.finish(run, seq, step.name, built.settled, stored);
  }

  /**
   * One attempt of a transactional step: the body's writes (through `ctx.entityManager`)
   * and the checkpoint commit in one transaction, or neither does.
   */
  private transactionalBody(
    scope: RunScope,
    call: MethodCall,
    frame: StepFrame,
    point: StepHookPoint,
    startedAt: number,
  ): Promise<CommittedWithBody> {
    const { run } = scope;
    return this.kernel.store.transaction(
      `run transactional step "${frame.name}"`,
      async (tx, manager) => {
        const value = await this.invokeBody(
          scope.inStep({ ...frame, entityManager: manager }),
          call,
        );
        if (frame.signal.aborted) throw frame.signal.reason;
        const built = this.records.row(
          run,
          frame.seq,
          frame.name,
          { ok: true, value },
          frame.attempt,
          startedAt,
          this.kernel.clock.now(),
        );
        if (!built.settled.ok) throw built.settled.error;
        this.kernel.hooks.afterEffect?.(point);
        // Another process recorded this step first: roll these writes back.
        if ((await tx.insertStep(built.row, run.epoch)) === 'duplicate') {
          throw new LeaseLostError(run.runId, run.epoch);
        }
        return new CommittedWithBody(value, built.row);
      },
      { userWork: true },
    );
  }

  private finish(
    run: ActiveRun,
    seq: number,
    name: string,
    settled: Settled,
    stored: StepRow,
  ): unknown {
    const durationMs = (stored.finishedAt ?? stored.startedAt) - stored.startedAt;
    const { events } = this.kernel;
    if (settled.ok) {
      events.emit('step.completed', { runId: run.runId, seq, step: name, durationMs });
      return settled.value;
    }
    events.emit('step.failed', {
      runId: run.runId,
      seq,
      step: name,
      durationMs,
      error: settled.error,
    });
    throw settled.error;
  }

  /**
   * While the runtime closes (a deploy), a run reaching a step boundary goes back to the
   * queue for another process to continue at once, instead of starting more work here.
   */
  private async handOver(run: ActiveRun): Promise<void> {
    if (!this.kernel.lifecycle.isClosing) return;
    await this.kernel.queue.release(run.runId, run.epoch, this.kernel.clock.now());
    const error = new RuntimeClosedError(
      `continue run "${run.runId}" here (handed over to another process)`,
    );
    run.halt(error, 'abort');
    throw error;
  }

  private assertSharedDataSource(call: MethodCall): void {
    if (this.kernel.sharesApplicationDataSource) return;
    throw new ConfigurationError(
      `@Step on ${qualifiedName(call.policies)} is transactional, but waymark stores runs in a database ` +
        "it opened itself; pass the application's TypeORM DataSource: Waymark.create({ database: dataSource })",
    );
  }
}
