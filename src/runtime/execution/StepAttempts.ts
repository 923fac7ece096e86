import type { StepEnvironment } from './StepEnvironment';
import { encodeError } from '../../codec/errorSnapshot';
import { RetriesExhaustedError, summarizeAttempt } from '../../errors/RetriesExhaustedError';
import { sleepUnless } from '../../ground/Clock';
import { decideRetry, type ResolvedRetryPolicy } from '../../policies/RetryPolicy';
import type { AttemptRow } from '../../store/rows';
import { replayAttempts, type AttemptHistory } from './AttemptHistory';
import { invokeAttempt, type Settled } from './invokeAttempt';
import type { LimiterGate } from './LimiterGate';
import { isMissingModule } from './missingModule';
import { isProcessAbort } from './processAbort';
import type { RunState } from './RunState';
import { Stop } from './RunStop';
import type { StepHookPoint } from '../../model/StepHooks';

const asItIs = (settled: Settled): Settled => settled;

/** Where a step that has no stored attempts stands: most steps, so it is made once. */
const NO_ATTEMPTS: AttemptHistory = replayAttempts([], () => undefined);

/** One step call to execute, with what its decorators recorded. */
export interface AttemptPlan {
  readonly run: RunState;
  readonly point: StepHookPoint;
  readonly policy: ResolvedRetryPolicy | undefined;
  readonly timeoutMs: number | undefined;
  /** The step's own idempotency key, stored with each failed attempt; null for the default. */
  readonly storedKey: string | null;
  /** The named limiter every attempt passes through (`@Step({ limiter })`), if any. */
  readonly limiter?: string;
  /** Runs the body once, in the step's scope, for `attempt` with `signal`. */
  readonly body: (attempt: number, signal: AbortSignal) => Promise<unknown>;
}

/** The step's final settlement and how many attempts it took; `park` asks for an operator. */
export type AttemptsOutcome = Settled & { readonly attempts: number; readonly park?: boolean };

/** What the retry loop uses. */
export type StepAttemptsDeps = StepEnvironment & { readonly limiters: LimiterGate };

/**
 * The retry loop of one step: runs attempts until one succeeds, an error is permanent, or
 * the budget is spent. The pure policy decides each delay; every failed attempt that will
 * be retried is stored (with when the next is due) before waiting, so a crash resumes the
 * count and the wait where they were. A wait past the durable threshold releases the run.
 */
export class StepAttempts {
  constructor(private readonly deps: StepAttemptsDeps) {}

  run(plan: AttemptPlan): Promise<AttemptsOutcome> {
    // Most steps: no retry policy and no attempt stored before a crash. Their one attempt
    // takes no loop and no async frame of its own (each is a promise on every step).
    if (plan.policy === undefined && !plan.run.attempts.has(plan.point.seq)) {
      return this.attempt(plan, 1, (settled) => this.unretried(plan.run, settled, 1));
    }
    return this.loop(plan);
  }

  private async loop(plan: AttemptPlan): Promise<AttemptsOutcome> {
    const { run, point, policy } = plan;
    const rows = run.attempts.get(point.seq);
    const stored = rows ? replayAttempts(rows, (row) => this.decode(row)) : NO_ATTEMPTS;
    let { budgetUsed, nextAt, nextNumber, lastError } = stored;
    const summaries = [...stored.summaries];
    let previousDelay: number | undefined;
    for (;;) {
      if (policy && budgetUsed >= policy.maxAttempts) {
        // Spent before a crash: decide again from what was stored, without running the body.
        return this.exhausted(plan, budgetUsed, summaries, lastError);
      }
      if (nextAt !== undefined) await this.waitUntil(run, nextAt);
      const attempt = budgetUsed + 1;
      const settled = await this.attempt(plan, attempt, asItIs);
      if (settled.ok || !policy) return this.unretried(run, settled, attempt);
      const { error } = settled;
      this.rethrowStopping(run, error);
      const now = this.deps.clock.now();
      const decision = decideRetry(policy, error, attempt, previousDelay, now, Math.random);
      summaries.push(summarizeAttempt(attempt, error));
      if (!decision.retry) {
        if (decision.exhausted) return this.exhausted(plan, attempt, summaries, error, nextNumber);
        return { ok: false, error, attempts: attempt };
      }
      nextAt = now + decision.delayMs;
      await this.recordFailure(plan, nextNumber, error, nextAt);
      this.deps.events.emit('step.retrying', {
        ...this.ids(plan),
        attempt,
        delayMs: decision.delayMs,
        error,
      });
      [budgetUsed, lastError, previousDelay] = [attempt, error, decision.delayMs];
      nextNumber++;
    }
  }

  /** The outcome of an attempt that no retry follows. */
  private unretried(run: RunState, settled: Settled, attempt: number): AttemptsOutcome {
    // Written out, not spread (see StepReplay.build): this is every step's return.
    if (settled.ok) return { ok: true, value: settled.value, attempts: attempt };
    this.rethrowStopping(run, settled.error);
    return { ok: false, error: settled.error, attempts: attempt };
  }

  /** An error that stops the run (or the process) goes on up instead of being the step's failure. */
  private rethrowStopping(run: RunState, error: unknown): void {
    // The run stops here: workflow code that catches it must not go on without the module.
    if (isMissingModule(error)) throw run.stop(Stop.abort(error));
    if (isProcessAbort(error) || run.cancellation.signal.aborted) throw error;
  }

  /** One attempt, and `then` of its settlement, taken in the attempt's own callback. */
  private attempt<T>(
    plan: AttemptPlan,
    attempt: number,
    then: (settled: Settled) => T,
  ): Promise<T> {
    const { run, point } = plan;
    run.assertRunnable();
    this.deps.lifecycle.assertAlive('run step', point.step);
    this.deps.hooks.onExecute?.(point);
    const invoke = <U>(after: (settled: Settled) => U): Promise<U> => {
      this.deps.events.emit('step.attempt', {
        runId: run.runId,
        seq: point.seq,
        step: point.step,
        attempt,
      });
      return invokeAttempt(
        (signal) => plan.body(attempt, signal),
        {
          step: point.step,
          timeoutMs: plan.timeoutMs,
          clock: this.deps.clock,
          cancellation: run.cancellation.signal,
        },
        after,
      );
    };
    if (plan.limiter === undefined) return invoke(then);
    const gated = { limiter: plan.limiter, runId: run.runId, step: point.step };
    return this.deps.limiters
      .around({ ...gated, cancellation: run.cancellation.signal }, () => invoke(asItIs))
      .then(then);
  }

  /**
   * The budget is spent: throw `RetriesExhaustedError` into the workflow, or, with
   * `onExhausted: 'intervene'`, store the last failure and ask the caller to park the run.
   */
  private async exhausted(
    plan: AttemptPlan,
    attempts: number,
    summaries: AttemptHistory['summaries'],
    lastError: unknown,
    unrecordedAttempt?: number,
  ): Promise<AttemptsOutcome> {
    const error = new RetriesExhaustedError(plan.point.step, attempts, [...summaries], lastError);
    if (plan.policy?.onExhausted !== 'intervene') return { ok: false, error, attempts };
    if (unrecordedAttempt !== undefined) {
      await this.recordFailure(plan, unrecordedAttempt, lastError, null);
    }
    return { ok: false, error, attempts, park: true };
  }

  /** Waits out a backoff; past the durable threshold, releases the run until it is due. */
  private async waitUntil(run: RunState, dueAt: number): Promise<void> {
    const { clock, lifecycle, store, durableDelayMs } = this.deps;
    const remaining = dueAt - clock.now();
    if (remaining <= 0) return;
    if (remaining > durableDelayMs) {
      await store.suspendRun(run.runId, run.epoch, dueAt, 'retry', clock.now());
      throw run.stop(Stop.suspended(run.runId, dueAt));
    }
    await sleepUnless(clock, remaining, lifecycle.signal, run.cancellation.signal);
  }

  private recordFailure(
    plan: AttemptPlan,
    attempt: number,
    error: unknown,
    nextAt: number | null,
  ): Promise<void> {
    const row: AttemptRow = {
      runId: plan.run.runId,
      seq: plan.point.seq,
      attempt,
      name: plan.point.step,
      status: 'failed',
      error: encodeError(this.deps.codec, error),
      failedAt: this.deps.clock.now(),
      nextAt,
      idempotencyKey: plan.storedKey,
    };
    return this.deps.store.insertAttempt(row, plan.run.epoch);
  }

  private ids(plan: AttemptPlan) {
    return { runId: plan.run.runId, seq: plan.point.seq, step: plan.point.step };
  }

  private decode(row: AttemptRow): unknown {
    try {
      return this.deps.codec.decode(
        row.error ?? '',
        `attempt ${row.attempt} of step #${row.seq} error`,
      );
    } catch (error) {
      return error;
    }
  }
}
