import { LeaseLostError } from '../errors/LeaseLostError';
import { SerializationError } from '../errors/SerializationError';
import type { RunFinish } from '../store/RunStore';
import type { ActiveRun } from './ActiveRun';
import { encodeError } from '../codec/errorSnapshot';
import type { Settled } from './invokeAttempt';
import { isProcessAbort } from './processAbort';
import type { RunOutcome } from './RunOutcome';
import { RunScope } from './RunScope';
import type { RuntimeKernel } from './RuntimeKernel';
import type { MethodCall } from './WorkflowCall';

/**
 * Executes a claimed run: calls the workflow method inside the run's scope, then stores
 * how it ended with one write. A process-level stop (crash, lost lease, closed runtime,
 * database gone) writes nothing, so the run stays resumable.
 */
export class RunExecutor {
  constructor(private readonly kernel: RuntimeKernel) {}

  async execute(run: ActiveRun, call: MethodCall, resumed: boolean): Promise<RunOutcome> {
    const { events, lifecycle } = this.kernel;
    const ids = { runId: run.runId, workflow: run.workflow };
    if (resumed) events.emit('run.resumed', { ...ids, recordedSteps: run.history.size });
    else events.emit('run.started', ids);

    const scope = RunScope.forRun(this.kernel, run);
    const settled = await this.untilDeath(
      scope
        .enter(() => call.policies.original.apply(call.instance, call.args))
        .then(async (value) => {
          await run.flush();
          return value;
        }),
    ).then(
      (value): Settled => ({ ok: true, value }),
      (error: unknown): Settled => ({ ok: false, error }),
    );

    const halted = run.halted;
    if (halted?.disposition === 'abort') throw halted.error;
    if (halted?.disposition === 'suspended') {
      events.emit('run.waiting', { ...ids, wakeAt: halted.wakeAt ?? null });
      return { status: 'waiting', wakeAt: halted.wakeAt ?? null };
    }
    if (halted?.disposition === 'parked') {
      events.emit('run.needs_attention', { ...ids, error: halted.error });
      return { status: 'needs_attention', error: halted.error };
    }
    if (run.cancellation.signal.aborted) {
      return { status: 'cancelled', error: run.cancellation.signal.reason };
    }
    if (!settled.ok && isProcessAbort(settled.error)) {
      await this.handOverIfClosing(run, settled.error);
      throw settled.error;
    }
    lifecycle.assertAlive(`finish run "${run.runId}"`);

    const { finish, outcome } = this.conclude(run, settled);
    await this.kernel.store.finishRun(run.runId, run.epoch, finish, this.kernel.clock.now());
    if (outcome.status === 'completed') events.emit('run.completed', ids);
    else if (outcome.status === 'needs_attention')
      events.emit('run.needs_attention', { ...ids, error: outcome.error });
    else events.emit('run.failed', { ...ids, error: outcome.error });
    return outcome;
  }

  private conclude(
    run: ActiveRun,
    settled: Settled,
  ): { finish: RunFinish; outcome: Exclude<RunOutcome, { status: 'waiting' }> } {
    const { codec } = this.kernel;
    if (run.halted) {
      const { error } = run.halted;
      return {
        finish: { status: 'needs_attention', result: null, error: encodeError(codec, error) },
        outcome: { status: 'needs_attention', error },
      };
    }
    if (settled.ok) {
      try {
        const result = codec.encode(settled.value, 'result');
        return {
          finish: { status: 'completed', result, error: null },
          outcome: { status: 'completed', result: settled.value },
        };
      } catch (error) {
        if (!(error instanceof SerializationError)) throw error;
        settled = { ok: false, error };
      }
    }
    return {
      finish: { status: 'failed', result: null, error: encodeError(codec, settled.error) },
      outcome: { status: 'failed', error: settled.error },
    };
  }

  /**
   * A run stopped because the runtime is closing goes back to the queue, so another
   * process continues it at once instead of after its lease lapses.
   */
  private async handOverIfClosing(run: ActiveRun, error: unknown): Promise<void> {
    const { lifecycle, queue, clock, logger } = this.kernel;
    if (!lifecycle.isClosing || error instanceof LeaseLostError) return;
    await queue.release(run.runId, run.epoch, clock.now()).catch((reason: unknown) => {
      logger.warn(
        `could not hand run "${run.runId}" over; another process takes it when its lease lapses`,
        {
          error: reason,
        },
      );
    });
  }

  /** Settles with `work`, or rejects at once if the runtime is killed first. */
  private untilDeath<T>(work: Promise<T>): Promise<T> {
    return new Promise<T>((resolve, reject) => {
      const unwatch = this.kernel.lifecycle.watchDeath(reject);
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
