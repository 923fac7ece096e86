import type { WriterKind } from '../../decorators/StepPlan';
import type { Clock } from '../../ground/Clock';
import type { Lifecycle } from '../../ground/Lifecycle';
import type { RuntimeEvents } from './RuntimeEvents';
import type { HandOver } from './HandOver';
import type { Settled } from './invokeAttempt';
import type { StepInfo } from '../../model/StepInfo';
import type { RunScope, StepFrame } from './RunScope';
import type { RunState } from './RunState';
import type { AttemptsOutcome, StepAttempts } from './StepAttempts';
import type { StepHookPoint, StepHooks } from '../../model/StepHooks';
import type { StepCall } from './StepCall';
import type { StepOutcomes } from './StepOutcomes';
import type { BuiltRow, StepReplay } from './StepReplay';
import type { CheckpointWriter, StepWrite } from './writers/CheckpointWriter';
import { CommittedWithBody } from './writers/TransactionalWriter';

/** Wraps each attempt of a step body (the public `StepInterceptor`). */
export interface BodyInvoker {
  intercept(step: StepInfo, next: () => Promise<unknown>): Promise<unknown>;
}

/** What the step path is made of. */
export interface StepPathParts {
  readonly replay: StepReplay;
  readonly attempts: StepAttempts;
  readonly outcomes: StepOutcomes;
  readonly writers: Readonly<Record<WriterKind, CheckpointWriter>>;
  readonly invoker: BodyInvoker;
  readonly handOver: HandOver;
  readonly clock: Clock;
  readonly events: RuntimeEvents;
  readonly hooks: StepHooks;
  readonly lifecycle: Lifecycle;
}

/**
 * Every `@Step` call inside a run, as one short fixed sequence: recorded outcome? (replay,
 * no I/O) → the writer's preparation (intent marker, global key) → attempts (retry with
 * backoff, timeout) → exactly one checkpoint write, by the writer the method's plan chose.
 */
export class StepPath {
  constructor(private readonly parts: StepPathParts) {}

  async call(scope: RunScope, seq: number, call: StepCall): Promise<unknown> {
    const { run } = scope;
    const { replay, outcomes, hooks, events } = this.parts;
    const step = call.plan;
    run.assertRunnable();
    if (this.parts.lifecycle.isClosing) await this.parts.handOver.atBoundary(run);
    const recorded = run.history.get(seq);
    if (recorded?.status === 'started') return outcomes.unknownOutcome(run, seq, step, recorded);
    if (recorded) return replay.replay(run, seq, step.name, recorded);

    const point: StepHookPoint = {
      runId: run.runId,
      seq,
      step: step.name,
      target: step.target,
    };
    if (run.needsFlush()) await run.flush();
    // After the flush: a crash "before" a step finds every earlier write stored, whether it
    // committed alone or waited for a group commit.
    hooks.beforeStep?.(point);
    const write = this.stepWrite(run, seq, call);
    const writer = this.parts.writers[step.writer];
    const beginning = writer.begin(write);
    const taken = beginning === undefined ? undefined : await beginning;
    if (taken !== undefined) return outcomes.deduplicated(write, taken);
    events.emit('step.started', { runId: run.runId, seq, step: step.name });
    // One async frame for the whole step: the attempts, then the one checkpoint write.
    const outcome = await this.parts.attempts.run({
      run,
      point,
      policy: step.retry,
      timeoutMs: step.timeoutMs,
      storedKey: write.storedKey,
      limiter: step.limiter,
      body: (attempt, signal) => this.body(scope, call, writer, write, attempt, signal),
    });
    this.parts.lifecycle.assertAlive('record step', write.name);
    // A completed step is never executed again: the chunks it streamed are stored first.
    if (run.hasPendingBuffers()) await run.flushBuffers();
    if (outcome.ok && outcome.value instanceof CommittedWithBody) {
      hooks.afterCommit?.(point);
      const { value, row } = outcome.value;
      return this.finish(run, seq, write.name, { ok: true, value }, row.startedAt, row.finishedAt);
    }
    hooks.afterEffect?.(point);
    if (outcome.park) return this.park(writer, write, outcome);
    // The one checkpoint write, awaited here rather than in a helper: an async frame less;
    // not awaited at all when it went in before the call returned.
    const { row, settled } = this.build(write, outcome);
    const written = writer.write(write, row);
    const stored = written === row ? row : await written;
    hooks.afterCommit?.(point);
    if (stored !== row) return replay.replay(run, seq, write.name, stored);
    return this.finish(run, seq, write.name, settled, write.startedAt, stored.finishedAt);
  }

  /** The row a step whose body ran here is stored as, and the outcome the workflow sees. */
  private build(write: StepWrite, outcome: AttemptsOutcome): BuiltRow {
    const { run, seq, name, startedAt, storedKey } = write;
    const now = this.parts.clock.now();
    return this.parts.replay.build(
      run,
      seq,
      name,
      outcome,
      outcome.attempts,
      startedAt,
      now,
      storedKey,
    );
  }

  /** The run parks at this step for an operator: what the writer took is given back first. */
  private async park(
    writer: CheckpointWriter,
    write: StepWrite,
    outcome: AttemptsOutcome,
  ): Promise<unknown> {
    await writer.abandon(write);
    return this.parts.outcomes.park(write.run, write.seq, (outcome as { error: unknown }).error);
  }

  /** What the writer needs to know of this step; its key is computed here, once. */
  private stepWrite(run: RunState, seq: number, call: StepCall): StepWrite {
    const startedAt = this.parts.clock.now();
    const { key, custom } = call.plan.keyOf(run.runId, seq, call.args);
    return {
      run,
      seq,
      name: call.plan.name,
      key,
      storedKey: custom ? key : null,
      startedAt,
      target: call.plan.target,
    };
  }

  /**
   * One attempt of the body, through the interceptor, in the step's scope (and, for a
   * transactional step, in the transaction its writer opens).
   */
  private body(
    scope: RunScope,
    call: StepCall,
    writer: CheckpointWriter,
    write: StepWrite,
    attempt: number,
    signal: AbortSignal,
  ): Promise<unknown> {
    const info: StepInfo = {
      runId: write.run.runId,
      step: write.name,
      seq: write.seq,
      attempt,
      kind: call.plan.origin,
    };
    return writer.attempt(write, attempt, (entityManager) => {
      const frame: StepFrame = {
        seq: write.seq,
        name: write.name,
        idempotencyKey: write.key,
        attempt,
        signal,
        entityManager,
      };
      const inStep = scope.inStep(frame);
      const run = this.parts.invoker.intercept(info, () => inStep.enter(call.body));
      // A transactional step's late result must not commit after its timeout.
      if (entityManager === undefined) return run;
      return run.then((value) => {
        if (signal.aborted) throw signal.reason;
        return value;
      });
    });
  }

  private finish(
    run: RunState,
    seq: number,
    name: string,
    settled: Settled,
    startedAt: number,
    finishedAt: number | null,
  ): unknown {
    const durationMs = (finishedAt ?? startedAt) - startedAt;
    const ids = { runId: run.runId, seq, step: name, durationMs };
    if (settled.ok) {
      this.parts.events.emit('step.completed', ids);
      return settled.value;
    }
    this.parts.events.emit('step.failed', { ...ids, error: settled.error });
    throw settled.error;
  }
}
