import type { Codec } from '../../codec/Codec';
import { encodeError } from '../../codec/errorSnapshot';
import { isLeaseLostError } from '../../errors/LeaseLostError';
import { reasonText } from '../../errors/reasonText';
import { isSerializationError } from '../../errors/SerializationError';
import type { Clock } from '../../ground/Clock';
import type { Lifecycle } from '../../ground/Lifecycle';
import type { Logger } from '../../ground/Logger';
import type { GroupedWrites } from '../../store/GroupCommit';
import type { RunFinish, RunStore } from '../../store/RunStore';
import type { RunClaims } from '../../store/RunClaims';
import type { RuntimeEvents } from './RuntimeEvents';
import type { Settled } from './invokeAttempt';
import { isProcessAbort } from './processAbort';
import { seenToEnd, type RunOutcome } from './RunOutcome';
import { RunScope, type RunOperations } from './RunScope';
import { callWorkflowBody } from './WorkflowCall';
import type { RunState } from './RunState';
import type { RunExecutor } from './Executions';
import { storedOutcome } from './storedOutcome';

/** What executing a claimed run uses. */
export interface RunExecutionDeps {
  readonly store: RunStore;
  /** Where the run's ending is written: in a group commit, or alone. */
  readonly finishes: Pick<GroupedWrites, 'finishRun'>;
  readonly queue: RunClaims;
  readonly codec: Codec;
  readonly clock: Clock;
  readonly events: RuntimeEvents;
  readonly lifecycle: Lifecycle;
  readonly logger: Logger;
}

type Ended = Exclude<RunOutcome, { status: 'waiting' }>;

/**
 * Executes one claim of a run: calls the workflow method inside the run's scope (its history
 * already loaded), then stores how it ended with one write. A process-level stop (crash,
 * lost lease, closed runtime, database gone) writes nothing, so the run stays resumable.
 */
export class RunExecution implements RunExecutor {
  constructor(private readonly deps: RunExecutionDeps) {}

  /** Executes `run` (claimed, its history loaded), whose workflow code does `operations`. */
  async execute(run: RunState, resumed: boolean, operations: RunOperations): Promise<RunOutcome> {
    const { events, lifecycle } = this.deps;
    const ids = { runId: run.runId, workflow: run.workflow };
    if (resumed) events.emit('run.resumed', { ...ids, recordedSteps: run.history.size });
    else events.emit('run.started', ids);

    const { call } = run;
    const body = RunScope.forRun(operations, run)
      .enter(() => callWorkflowBody(call))
      .then(async (value) => {
        await run.flush();
        return value;
      });
    const settled = await this.untilDeath(body).then(
      (value): Settled => ({ ok: true, value }),
      (error: unknown): Settled => ({ ok: false, error }),
    );

    const halted = run.halted;
    if (halted?.kind === 'abort') return this.stopped(run, halted.error);
    if (halted?.kind === 'suspended') {
      events.emit('run.waiting', { ...ids, wakeAt: halted.wakeAt });
      return { status: 'waiting', wakeAt: halted.wakeAt };
    }
    if (halted?.kind === 'parked') {
      events.emit('run.needs_attention', { ...ids, error: halted.error });
      return { status: 'needs_attention', error: halted.error, storedAt: null };
    }
    if (run.cancellation.signal.aborted) {
      return { status: 'cancelled', error: run.cancellation.signal.reason, storedAt: null };
    }
    if (!settled.ok && isProcessAbort(settled.error)) {
      await this.handOverIfClosing(run, settled.error);
      return this.stopped(run, settled.error);
    }
    lifecycle.assertAlive(`finish run "${run.runId}"`);

    const { finish, outcome } = this.conclude(run, settled);
    await this.deps.finishes.finishRun(run.runId, run.epoch, finish, this.deps.clock.now());
    if (outcome.status === 'completed') events.emit('run.completed', ids);
    else if (outcome.status === 'needs_attention')
      events.emit('run.needs_attention', { ...ids, error: outcome.error });
    else events.emit('run.failed', { ...ids, error: outcome.error });
    return outcome;
  }

  private conclude(run: RunState, settled: Settled): { finish: RunFinish; outcome: Ended } {
    const { codec } = this.deps;
    if (run.halted) {
      const { error } = run.halted;
      return {
        finish: {
          status: 'needs_attention',
          result: null,
          error: encodeError(codec, error),
          parkedReason: reasonText(error),
        },
        outcome: { status: 'needs_attention', error, storedAt: null },
      };
    }
    if (settled.ok) {
      try {
        const result = codec.encode(settled.value, 'result');
        return {
          finish: { status: 'completed', result, error: null, parkedReason: null },
          outcome: { status: 'completed', result: settled.value },
        };
      } catch (error) {
        if (!isSerializationError(error)) throw error;
        settled = { ok: false, error };
      }
    }
    return {
      finish: {
        status: 'failed',
        result: null,
        error: encodeError(codec, settled.error),
        parkedReason: null,
      },
      outcome: { status: 'failed', error: settled.error, storedAt: null },
    };
  }

  /**
   * A run stopped here by a process-level `error`. `runtime.cancel()` elsewhere moves the
   * run's epoch, so a step write here can find the lease lost before the lease keeper sees
   * the cancellation: such a run ended cancelled, it was not taken over (its callers saw it
   * end: not a stored outcome handed back). Anything else stands, and the run stays
   * resumable.
   */
  private async stopped(run: RunState, error: unknown): Promise<RunOutcome> {
    if (isLeaseLostError(error)) {
      const row = await this.deps.store.loadRun(run.runId).catch(() => undefined);
      if (row?.status === 'cancelled') return seenToEnd(storedOutcome(this.deps.codec, row));
    }
    throw error;
  }

  /**
   * A run stopped because the runtime is closing goes back to the queue, so another
   * process continues it at once instead of after its lease lapses.
   */
  private async handOverIfClosing(run: RunState, error: unknown): Promise<void> {
    const { lifecycle, queue, clock, logger } = this.deps;
    if (!lifecycle.isClosing || isLeaseLostError(error)) return;
    await queue.release(run.runId, run.epoch, clock.now()).catch((reason: unknown) => {
      logger.warn(
        `could not hand run "${run.runId}" over; another process takes it when its lease lapses`,
        { error: reason },
      );
    });
  }

  /** Settles with `work`, or rejects at once if the runtime is killed first. */
  private untilDeath<T>(work: Promise<T>): Promise<T> {
    return new Promise<T>((resolve, reject) => {
      const unwatch = this.deps.lifecycle.watchDeath(reject);
      work.then(
        (value) => {
          unwatch();
          resolve(value);
        },
        (error: Error) => {
          unwatch();
          reject(error);
        },
      );
    });
  }
}
