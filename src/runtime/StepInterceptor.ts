import { inject, injectable } from 'tsyringe';
import { qualifiedName } from '../decorators/metadata';
import { validateClassPolicies } from '../decorators/validateClassPolicies';
import { CorruptValueError } from '../errors/CorruptValueError';
import { NonDeterminismError } from '../errors/NonDeterminismError';
import { SerializationError } from '../errors/SerializationError';
import type { StepRow } from '../store/rows';
import type { ActiveRun } from './ActiveRun';
import { encodeError } from './errorSnapshot';
import type { Settled } from './invokeAttempt';
import { isProcessAbort } from './processAbort';
import type { RunOutcome } from './RunOutcome';
import { unwrapOutcome } from './RunOutcome';
import type { RunScope } from './RunScope';
import { RUNTIME_KERNEL, type RuntimeKernel } from './RuntimeKernel';
import { StepAttempts } from './StepAttempts';
import type { StepHookPoint } from './StepHooks';
import type { MethodCall } from './WorkflowCall';

/**
 * Runs every `@Step` call inside a run as a short fixed sequence: next sequence number →
 * recorded outcome? → name check → attempts (retry with backoff, timeout) → one checkpoint
 * write. Resolved from the container, so an application can register a subclass (for
 * tracing, say) in its place.
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

  constructor(@inject(RUNTIME_KERNEL) protected readonly kernel: RuntimeKernel) {
    this.attempts = new StepAttempts(kernel);
  }

  /** A `@Step` called at the top level of a run. Takes its seq synchronously. */
  interceptStep(scope: RunScope, call: MethodCall): Promise<unknown> {
    const seq = scope.run.nextSeq();
    return this.step(scope, seq, call);
  }

  /** A `@Workflow` called outside any run: start, resume or read back that run. */
  async interceptWorkflow(call: MethodCall): Promise<unknown> {
    const launch = await this.kernel.launcher.launch(call);
    return unwrapOutcome(await this.kernel.launcher.awaitOutcome(launch.runId, launch.outcome));
  }

  /** A `@Workflow` called inside a run: a child run, memoized in the parent like a step. */
  interceptChildWorkflow(scope: RunScope, call: MethodCall): Promise<unknown> {
    const seq = scope.run.nextSeq();
    return this.child(scope, seq, call);
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
    if (recorded) return this.replay(run, seq, name, recorded) as T;
    const value = produce();
    const now = this.kernel.clock.now();
    const { row, settled } = this.row(run, seq, name, { ok: true, value }, 1, now, now);
    if (!settled.ok) throw settled.error;
    run.track(this.record(run, row));
    return value;
  }

  /** Executes a step body in its own scope. Override to wrap every execution. */
  protected invokeBody(scope: RunScope, call: MethodCall): Promise<unknown> {
    return scope.enter(() => call.policies.original.apply(call.instance, call.args));
  }

  private async step(scope: RunScope, seq: number, call: MethodCall): Promise<unknown> {
    const { run } = scope;
    const step = call.policies.step!;
    run.assertRunnable();
    validateClassPolicies(call.declaringClass);
    const recorded = run.history.get(seq);
    if (recorded) return this.replay(run, seq, step.name, recorded);

    const { hooks, clock, events } = this.kernel;
    const point: StepHookPoint = {
      runId: run.runId,
      seq,
      step: step.name,
      target: qualifiedName(call.policies),
    };
    hooks.beforeStep?.(point);
    await run.flush();
    const startedAt = clock.now();
    events.emit('step.started', { runId: run.runId, seq, step: step.name });
    const idempotencyKey = `${run.runId}:${seq}`;
    const outcome = await this.attempts.run({
      run,
      point,
      policy: call.policies.retry,
      timeoutMs: step.timeoutMs,
      body: (attempt, signal) =>
        this.invokeBody(
          scope.inStep({ seq, name: step.name, idempotencyKey, attempt, signal }),
          call,
        ),
    });
    this.kernel.lifecycle.assertAlive(`record step "${step.name}"`);
    hooks.afterEffect?.(point);
    if (outcome.park) return this.park(run, seq, outcome);

    const result = this.row(run, seq, step.name, outcome, outcome.attempts, startedAt, clock.now());
    const stored = await this.record(run, result.row);
    hooks.afterCommit?.(point);
    if (stored !== result.row) return this.replay(run, seq, step.name, stored);
    const durationMs = stored.finishedAt! - stored.startedAt;
    if (result.settled.ok) {
      events.emit('step.completed', { runId: run.runId, seq, step: step.name, durationMs });
      return result.settled.value;
    }
    const { error } = result.settled;
    events.emit('step.failed', { runId: run.runId, seq, step: step.name, durationMs, error });
    throw error;
  }

  /** Parks the run at this step for an operator (`retry`, `resolveStep`, `cancel`). */
  private async park(run: ActiveRun, seq: number, outcome: Settled): Promise<never> {
    const error = (outcome as { error: unknown }).error;
    const { store, clock, codec } = this.kernel;
    await store.parkRun(run.runId, run.epoch, seq, encodeError(codec, error), clock.now());
    run.halt(error, 'parked');
    throw error;
  }

  private async child(scope: RunScope, seq: number, call: MethodCall): Promise<unknown> {
    const { run } = scope;
    const workflow = call.policies.workflow!;
    run.assertRunnable();
    const recorded = run.history.get(seq);
    if (recorded) return this.replay(run, seq, workflow.name, recorded);
    await run.flush();
    const startedAt = this.kernel.clock.now();
    const runId = workflow.id ? undefined : `${run.runId}/${seq}`;
    const { launcher } = this.kernel;
    const launch = await launcher.launch(call, { runId, parentRunId: run.runId });
    const outcome: RunOutcome = await launcher.awaitOutcome(launch.runId, launch.outcome);
    if (outcome.status === 'needs_attention') {
      run.halt(outcome.error, 'needs_attention');
      throw outcome.error;
    }
    const settled: Settled =
      outcome.status === 'completed'
        ? { ok: true, value: outcome.result }
        : { ok: false, error: (outcome as { error: unknown }).error };
    const result = this.row(
      run,
      seq,
      workflow.name,
      settled,
      1,
      startedAt,
      this.kernel.clock.now(),
    );
    const stored = await this.record(run, result.row);
    if (stored !== result.row) return this.replay(run, seq, workflow.name, stored);
    if (result.settled.ok) return result.settled.value;
    throw result.settled.error;
  }

  /** Returns or throws a recorded outcome, after checking the code still calls that step. */
  private replay(run: ActiveRun, seq: number, name: string, recorded: StepRow): unknown {
    if (recorded.name !== name) {
      const error = new NonDeterminismError(run.runId, seq, recorded.name, name);
      run.halt(error, 'needs_attention');
      throw error;
    }
    const { codec, events } = this.kernel;
    events.emit('step.replayed', { runId: run.runId, seq, step: name, status: recorded.status });
    try {
      if (recorded.status === 'completed') {
        return codec.decode(recorded.output ?? '', `step #${seq} "${name}" result`);
      }
      throw codec.decode(recorded.output ?? '', `step #${seq} "${name}" error`);
    } catch (error) {
      if (error instanceof CorruptValueError) run.halt(error, 'needs_attention');
      throw error;
    }
  }

  /** Writes the checkpoint; if another process stored this seq first, its outcome wins. */
  private async record(run: ActiveRun, row: StepRow): Promise<StepRow> {
    const { store } = this.kernel;
    if ((await store.insertStep(row, run.epoch)) === 'inserted') return row;
    return (await store.loadStep(row.runId, row.seq)) ?? row;
  }

  /** The row to store; a result that cannot be stored becomes the step's failure. */
  private row(
    run: ActiveRun,
    seq: number,
    name: string,
    settled: Settled,
    attempts: number,
    startedAt: number,
    finishedAt: number,
  ): { row: StepRow; settled: Settled } {
    const base = { runId: run.runId, seq, name, attempts, startedAt, finishedAt };
    const { codec } = this.kernel;
    if (settled.ok) {
      try {
        const output = codec.encode(settled.value, 'result');
        return { row: { ...base, status: 'completed', output }, settled };
      } catch (error) {
        if (!(error instanceof SerializationError)) throw error;
        settled = { ok: false, error };
      }
    }
    if (isProcessAbort(settled.error)) throw settled.error;
    const output = encodeError(codec, settled.error);
    return { row: { ...base, status: 'failed', output }, settled };
  }
}
