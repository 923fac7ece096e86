import {
  RetriesExhaustedError,
  summarizeAttempt,
  type AttemptSummary,
} from '../errors/RetriesExhaustedError';
import { decideRetry, type ResolvedRetryPolicy } from '../policies/RetryPolicy';
import type { AttemptRow } from '../store/rows';
import type { ActiveRun } from './ActiveRun';
import { encodeError } from '../codec/errorSnapshot';
import { invokeAttempt, type Settled } from './invokeAttempt';
import { isProcessAbort } from './processAbort';
import { RunSuspended } from './RunSuspended';
import type { RuntimeKernel } from './RuntimeKernel';
import type { StepHookPoint } from './StepHooks';

/** One step call to execute, with what its decorators recorded. */
export interface AttemptPlan {
  readonly run: ActiveRun;
  readonly point: StepHookPoint;
  readonly policy: ResolvedRetryPolicy | undefined;
  readonly timeoutMs: number | undefined;
  /** Runs the body once, in the step's scope, for `attempt` with `signal`. */
  readonly body: (attempt: number, signal: AbortSignal) => Promise<unknown>;
}

/** The step's final settlement and how many attempts it took; `park` asks for an operator. */
export type AttemptsOutcome = Settled & { readonly attempts: number; readonly park?: boolean };

/**
 * The retry loop of one step: runs attempts until one succeeds, an error is permanent, or
 * the budget is spent. Each failed attempt that will be retried is stored (attempt number,
 * error, when the next is due) before waiting, so a crash resumes the count and the wait
 * where they were. A wait longer than the durable threshold releases the run instead.
 */
export class StepAttempts {
  constructor(private readonly kernel: RuntimeKernel) {}

  async run(plan: AttemptPlan): Promise<AttemptsOutcome> {
    const { run, point, policy } = plan;
    const stored = run.attempts.get(point.seq) ?? [];
    const summaries: AttemptSummary[] = [];
    let budgetUsed = 0;
    let lastError: unknown;
    let nextAt: number | undefined;
    for (const row of stored) {
      if (row.status === 'reset') {
        budgetUsed = 0;
        summaries.length = 0;
        nextAt = undefined;
        continue;
      }
      budgetUsed++;
      lastError = this.decodeError(row);
      summaries.push(summarizeAttempt(budgetUsed, lastError));
      nextAt = row.nextAt ?? undefined;
    }
    let attemptNumber = (stored[stored.length - 1]?.attempt ?? 0) + 1;
    let previousDelay: number | undefined;

    for (;;) {
      if (policy && budgetUsed >= policy.maxAttempts) {
        // Spent before a crash: decide again from what was stored, without running the body.
        return this.exhausted(plan, budgetUsed, summaries, lastError);
      }
      if (nextAt !== undefined) await this.waitUntil(run, nextAt);
      run.assertRunnable();
      this.kernel.lifecycle.assertAlive(`run step "${point.step}"`);
      this.kernel.hooks.onExecute?.(point);
      this.kernel.events.emit('step.attempt', {
        runId: run.runId,
        seq: point.seq,
        step: point.step,
        attempt: budgetUsed + 1,
      });
      const settled = await invokeAttempt((signal) => plan.body(budgetUsed + 1, signal), {
        step: point.step,
        timeoutMs: plan.timeoutMs,
        clock: this.kernel.clock,
        cancellation: run.cancellation.signal,
      });
      const attempt = budgetUsed + 1;
      if (settled.ok) return { ...settled, attempts: attempt };
      const { error } = settled;
      if (isProcessAbort(error) || run.cancellation.signal.aborted) throw error;
      if (!policy) return { ok: false, error, attempts: attempt };

      const decision = decideRetry(
        policy,
        error,
        attempt,
        previousDelay,
        this.kernel.clock.now(),
        Math.random,
      );
      summaries.push(summarizeAttempt(attempt, error));
      if (!decision.retry) {
        if (decision.exhausted)
          return this.exhausted(plan, attempt, summaries, error, attemptNumber);
        return { ok: false, error, attempts: attempt };
      }
      nextAt = this.kernel.clock.now() + decision.delayMs;
      await this.kernel.store.insertAttempt(
        this.attemptRow(plan, attemptNumber, error, nextAt),
        run.epoch,
      );
      this.kernel.events.emit('step.retrying', {
        runId: run.runId,
        seq: point.seq,
        step: point.step,
        attempt,
        delayMs: decision.delayMs,
        error,
      });
      budgetUsed = attempt;
      lastError = error;
      attemptNumber++;
      previousDelay = decision.delayMs;
    }
  }

  /**
   * The budget is spent: throw `RetriesExhaustedError` into the workflow, or, with
   * `onExhausted: 'intervene'`, store the last failure and ask the caller to park the run.
   */
  private async exhausted(
    plan: AttemptPlan,
    attempts: number,
    summaries: AttemptSummary[],
    lastError: unknown,
    unrecordedAttempt?: number,
  ): Promise<AttemptsOutcome> {
    const error = new RetriesExhaustedError(plan.point.step, attempts, [...summaries], lastError);
    if (plan.policy?.onExhausted !== 'intervene') return { ok: false, error, attempts };
    if (unrecordedAttempt !== undefined) {
      await this.kernel.store.insertAttempt(
        this.attemptRow(plan, unrecordedAttempt, lastError, null),
        plan.run.epoch,
      );
    }
    return { ok: false, error, attempts, park: true };
  }

  /** Waits out a backoff; past the durable threshold, releases the run until it is due. */
  private async waitUntil(run: ActiveRun, dueAt: number): Promise<void> {
    const { clock, lifecycle, store } = this.kernel;
    const remaining = dueAt - clock.now();
    if (remaining <= 0) return;
    if (remaining > this.kernel.durableDelayMs) {
      await store.suspendRun(run.runId, run.epoch, dueAt, 'retry', clock.now());
      const suspended = new RunSuspended(run.runId, dueAt);
      run.halt(suspended, 'suspended', dueAt);
      throw suspended;
    }
    await clock.sleep(remaining, AbortSignal.any([lifecycle.signal, run.cancellation.signal]));
  }

  private attemptRow(
    plan: AttemptPlan,
    attempt: number,
    error: unknown,
    nextAt: number | null,
  ): AttemptRow {
    return {
      runId: plan.run.runId,
      seq: plan.point.seq,
      attempt,
      name: plan.point.step,
      status: 'failed',
      error: encodeError(this.kernel.codec, error),
      failedAt: this.kernel.clock.now(),
      nextAt,
    };
  }

  private decodeError(row: AttemptRow): unknown {
    try {
      return this.kernel.codec.decode(
        row.error ?? '',
        `attempt ${row.attempt} of step #${row.seq} error`,
      );
    } catch (error) {
      return error;
    }
  }
}
