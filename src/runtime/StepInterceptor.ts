import { inject, injectable } from 'tsyringe';
import { qualifiedName } from '../decorators/metadata';
import { validateClassPolicies } from '../decorators/validateClassPolicies';
import { CorruptValueError } from '../errors/CorruptValueError';
import { NonDeterminismError } from '../errors/NonDeterminismError';
import { SerializationError } from '../errors/SerializationError';
import type { StepRow } from '../store/rows';
import type { ActiveRun } from './ActiveRun';
import { encodeError } from './errorSnapshot';
import { isProcessAbort } from './processAbort';
import { RunScope } from './RunScope';
import { RUNTIME_KERNEL, type RuntimeKernel } from './RuntimeKernel';
import type { StepHookPoint } from './StepHooks';
import type { MethodCall } from './WorkflowCall';
import { unwrapOutcome, type RunOutcome } from './RunOutcome';

type Settled = { ok: true; value: unknown } | { ok: false; error: unknown };

/**
 * Runs every `@Step` call inside a run as a short fixed sequence: next sequence number →
 * recorded outcome? → name check → body → one checkpoint write. Resolved from the
 * container, so an application can register a subclass (for tracing, say) in its place.
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
  constructor(@inject(RUNTIME_KERNEL) protected readonly kernel: RuntimeKernel) {}

  /** A `@Step` called at the top level of a run. Takes its seq synchronously. */
  interceptStep(scope: RunScope, call: MethodCall): Promise<unknown> {
    const seq = scope.run.nextSeq();
    return this.step(scope, seq, call);
  }

  /** A `@Workflow` called outside any run: start, resume or read back that run. */
  async interceptWorkflow(call: MethodCall): Promise<unknown> {
    const launch = await this.kernel.launcher.launch(call);
    return unwrapOutcome(await launch.outcome);
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
    if (run.halted) throw run.halted.error;
    const seq = run.nextSeq();
    const recorded = run.history.get(seq);
    if (recorded) return this.replay(run, seq, name, recorded) as T;
    const value = produce();
    const now = this.kernel.clock.now();
    const { row, settled } = this.row(run, seq, name, { ok: true, value }, now, now);
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
    const name = call.policies.step!.name;
    if (run.halted) throw run.halted.error;
    validateClassPolicies(call.declaringClass);
    const recorded = run.history.get(seq);
    if (recorded) return this.replay(run, seq, name, recorded);

    const { hooks, clock, events } = this.kernel;
    const point: StepHookPoint = {
      runId: run.runId,
      seq,
      step: name,
      target: qualifiedName(call.policies),
    };
    hooks.beforeStep?.(point);
    await run.flush();
    this.kernel.lifecycle.assertAlive(`run step "${name}"`);
    const startedAt = clock.now();
    events.emit('step.started', { runId: run.runId, seq, step: name });
    hooks.onExecute?.(point);
    const stepScope = scope.inStep({
      seq,
      name,
      idempotencyKey: `${run.runId}:${seq}`,
      attempt: 1,
      signal: new AbortController().signal,
    });
    const settled = await this.invokeBody(stepScope, call).then(
      (value): Settled => ({ ok: true, value }),
      (error: unknown): Settled => ({ ok: false, error }),
    );
    if (!settled.ok && isProcessAbort(settled.error)) throw settled.error;
    this.kernel.lifecycle.assertAlive(`record step "${name}"`);
    hooks.afterEffect?.(point);

    const outcome = this.row(run, seq, name, settled, startedAt, clock.now());
    const stored = await this.record(run, outcome.row);
    hooks.afterCommit?.(point);
    if (stored !== outcome.row) return this.replay(run, seq, name, stored);
    const durationMs = stored.finishedAt! - stored.startedAt;
    if (outcome.settled.ok) {
      events.emit('step.completed', { runId: run.runId, seq, step: name, durationMs });
      return outcome.settled.value;
    }
    const { error } = outcome.settled;
    events.emit('step.failed', { runId: run.runId, seq, step: name, durationMs, error });
    throw error;
  }

  private async child(scope: RunScope, seq: number, call: MethodCall): Promise<unknown> {
    const { run } = scope;
    const workflow = call.policies.workflow!;
    if (run.halted) throw run.halted.error;
    const recorded = run.history.get(seq);
    if (recorded) return this.replay(run, seq, workflow.name, recorded);
    await run.flush();
    const startedAt = this.kernel.clock.now();
    const runId = workflow.id ? undefined : `${run.runId}/${seq}`;
    const launch = await this.kernel.launcher.launch(call, { runId, parentRunId: run.runId });
    const outcome: RunOutcome = await launch.outcome;
    if (outcome.status === 'needs_attention') {
      run.halt(outcome.error, 'needs_attention');
      throw outcome.error;
    }
    const settled: Settled =
      outcome.status === 'completed'
        ? { ok: true, value: outcome.result }
        : { ok: false, error: outcome.error };
    const result = this.row(run, seq, workflow.name, settled, startedAt, this.kernel.clock.now());
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
      if (recorded.status === 'completed')
        return codec.decode(recorded.output ?? '', `step #${seq} "${name}" result`);
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
    startedAt: number,
    finishedAt: number,
  ): { row: StepRow; settled: Settled } {
    const base = { runId: run.runId, seq, name, attempts: 1, startedAt, finishedAt };
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
    const output = encodeError(codec, settled.error);
    return { row: { ...base, status: 'failed', output }, settled };
  }
}
