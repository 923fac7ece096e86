import { randomUUID } from 'node:crypto';
import type { Codec } from '../codec/Codec';
import { ConfigurationError } from '../errors/ConfigurationError';
import { RunCancelledError } from '../errors/RunCancelledError';
import type { Clock } from '../ground/Clock';
import { assertRunId } from '../model/identifiers';
import type { RunControl, TakeOver } from '../store/RunControl';
import type { RunCancellation } from '../store/RunCancellation';
import type { Claims } from './execution/Claims';
import type { Executions } from './execution/Executions';
import type { RuntimeEvents } from './execution/RuntimeEvents';
import type { Runs } from './Runs';

/**
 * Options of `retry()`, `resolveStep()` and `fork()`: where the run continues. `queue: true`
 * leaves it `pending` for a worker (any process) instead of continuing it here.
 */
export interface ResumeOptions {
  queue?: boolean;
}

/** Options of `fork()`: the seq the copy diverges at, its id, and where it continues. */
export interface ForkOptions extends ResumeOptions {
  /** Copy the history before this seq; the fork runs on from there. */
  fromSeq: number;
  /** The new run's id; default `<runId>:fork-<8 hex digits>`. */
  newRunId?: string;
}

/** What operator actions use. */
export interface OperatorActionsDeps {
  readonly control: RunControl;
  readonly cancellation: RunCancellation;
  readonly runs: Runs;
  readonly executions: Executions;
  readonly claims: Claims;
  readonly codec: Codec;
  readonly clock: Clock;
  readonly events: RuntimeEvents;
}

/**
 * What an operator does to stored runs — retry, resolve a parked step, fork, cancel — each
 * one transaction that also claims the run for this runtime (a new epoch and token), so the
 * run continues here at once, or is left `pending` for a worker.
 */
export class OperatorActions {
  constructor(private readonly deps: OperatorActionsDeps) {}

  async retry(runId: string, options: ResumeOptions): Promise<void> {
    const claim = this.deps.claims.takeOver(options.queue === true);
    const epoch = await this.deps.control.retry(runId, claim);
    this.continueHere(runId, epoch, claim);
  }

  async resolveStep(runId: string, value: unknown, options: ResumeOptions): Promise<void> {
    const output = this.deps.codec.encode(value, 'value');
    const claim = this.deps.claims.takeOver(options.queue === true);
    const epoch = await this.deps.control.resolveStep(runId, output, claim);
    this.continueHere(runId, epoch, claim);
  }

  /**
   * Forks `runId` from `fromSeq` into a new run (by default `${runId}:fork-<random>`); its id.
   * `overrides` (seq → encoded result) stand in the copy for the original's steps there.
   */
  async fork(
    runId: string,
    options: ForkOptions,
    overrides?: ReadonlyMap<number, string>,
  ): Promise<string> {
    const { fromSeq } = options;
    const newRunId = options.newRunId ?? `${runId}:fork-${randomUUID().slice(0, 8)}`;
    if (!Number.isInteger(fromSeq) || fromSeq < 0) {
      throw new ConfigurationError(
        `fork(): fromSeq must be a sequence number (an integer ≥ 0), got ${String(fromSeq)}`,
      );
    }
    assertRunId(newRunId, 'fork(): newRunId');
    const claim = this.deps.claims.takeOver(options.queue === true);
    await this.deps.control.fork(runId, newRunId, fromSeq, claim, overrides);
    this.continueHere(newRunId, 1, claim);
    return newRunId;
  }

  /** Cancels the run and every run under it that has not ended (child runs, theirs). */
  async cancel(runId: string, reason: string | undefined): Promise<void> {
    const { cancellation, codec, clock, executions, events } = this.deps;
    const error = new RunCancelledError(runId, reason);
    const ids = await cancellation.cancel(runId, codec.encode(error, 'error'), clock.now());
    for (const id of ids) {
      executions.cancelLocal(id, error);
      events.emit('run.cancelled', { runId: id, reason: id === runId ? reason : error.message });
    }
  }

  private continueHere(runId: string, epoch: number, takeOver: TakeOver): void {
    if (takeOver.holder)
      this.deps.runs.executeOperatorClaim({ runId, epoch, token: takeOver.token });
  }
}
