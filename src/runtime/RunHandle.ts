import { RunNotFoundError } from '../errors/RunNotFoundError';
import type { RunRow } from '../store/rows';
import {
  type RunSummary,
  type StepRecord,
  type StoredOutcome,
  type WholeValueOf,
} from '../model/RunRecords';
import type { HistoryPageOptions } from '../model/HistoryPage';
import type { RunStatus } from '../model/RunStatus';
import type { PendingSignal } from '../store/SignalStore';
import { valueCharsOption } from '../model/StoredValue';
import { InvalidArgumentError } from '../errors/InvalidArgumentError';
import { unwrapOutcome, type RunOutcome } from './execution/RunOutcome';

/** What a handle reads a run through (given by its runtime). */
export interface RunAccess {
  loadRun(runId: string): Promise<RunRow | undefined>;
  /** The run's summary, its arguments cut at `valueChars` by the database. */
  describe(runId: string, valueChars: number): Promise<RunSummary>;
  outcome(runId: string, valueChars: number): Promise<StoredOutcome | null>;
  wholeValue(runId: string, of: WholeValueOf): Promise<string | null>;
  history(runId: string, page?: HistoryPageOptions): Promise<StepRecord[]>;
  pendingSignals(runId: string, name?: string): Promise<PendingSignal[]>;
  /** Waits until the run ends, here or in any process. */
  awaitRun(runId: string): Promise<RunOutcome>;
}

/**
 * A reference to a stored run.
 *
 * @example
 * ```ts
 * const handle = await runtime.start(ResearchAgent, 'research', ['durable execution']);
 * console.log(handle.runId, await handle.status());
 * const report = await handle.result();
 * ```
 */
export class RunHandle<T = unknown> {
  /** @internal Use `runtime.start()` or `runtime.handle()`. */
  constructor(
    readonly runId: string,
    private readonly access: RunAccess,
  ) {}

  /**
   * The run as stored now: status, owner, when a waiting run is due, where it is parked and
   * why, and its arguments (cut at `valueChars` characters, default 200; `Infinity` for all).
   * The database reads only the start of the arguments.
   *
   * @example
   * ```ts
   * const run = await runtime.handle('po-1234').describe();
   * if (run.status === 'needs_attention') console.log(run.parkedReason, run.args?.json);
   * ```
   */
  async describe(options: { valueChars?: number } = {}): Promise<RunSummary> {
    const chars = valueCharsOption(options.valueChars, 'describe(): valueChars');
    return this.access.describe(this.runId, chars);
  }

  /**
   * How the run ended, as stored, without decoding it: `{ result }` (the codec's JSON cut at
   * `valueChars`, default 200) or `{ error, length }` (the error's name, message and string
   * code each cut there, a cut one ending `… (N more characters)`); null while it has not
   * ended. The database reads only those starts, however large the value.
   *
   * @example
   * ```ts
   * const outcome = await runtime.handle('po-1234').outcome({ valueChars: 1000 });
   * if (outcome && 'error' in outcome) console.log(outcome.error.message);
   * ```
   */
  async outcome(options: { valueChars?: number } = {}): Promise<StoredOutcome | null> {
    const chars = valueCharsOption(options.valueChars, 'outcome(): valueChars');
    return this.access.outcome(this.runId, chars);
  }

  /**
   * One stored value whole, as the codec's JSON text (never decoded): `'args'`, `'outcome'`
   * (the result, or the error the run ended with) or `{ stepSeq }` (a step's output, or the
   * error it failed with). Null when there is none (the run has not ended; no such step).
   *
   * @example
   * ```ts
   * const text = await runtime.handle('po-1234').wholeValue({ stepSeq: 3 });
   * ```
   */
  async wholeValue(of: WholeValueOf): Promise<string | null> {
    if (of !== 'args' && of !== 'outcome') {
      const seq = (of as { stepSeq?: unknown } | null)?.stepSeq;
      if (!Number.isSafeInteger(seq) || (seq as number) < 0) {
        throw new InvalidArgumentError(
          'wholeValue(): of',
          `must be 'args', 'outcome' or { stepSeq } with a sequence number, got ${String(seq)}`,
        );
      }
    }
    return this.access.wholeValue(this.runId, of);
  }

  /**
   * Signals sent to this run (named `name`, when given) that no wait has taken yet, oldest
   * first, at most 100: a run waiting for one of them resumes as soon as a worker takes it.
   */
  pendingSignals(name?: string): Promise<PendingSignal[]> {
    return this.access.pendingSignals(this.runId, name);
  }

  /** The run's stored status now. */
  async status(): Promise<RunStatus> {
    return (await this.row()).status;
  }

  /** The run's step records in sequence order: all, or one page (see `runtime.history`). */
  history(page?: HistoryPageOptions): Promise<StepRecord[]> {
    return this.access.history(this.runId, page);
  }

  /**
   * Waits until the run ends and returns its result, or throws its error. Works whether
   * this process or another one executes the run. A run this process parks in
   * `needs_attention` rejects with the reason; one parked elsewhere is waited for. The error
   * of a run that had ended before this call is its stored outcome, marked as such (one line
   * appended to its message; see `storedOutcomeOf`).
   */
  async result(): Promise<T> {
    return unwrapOutcome(await this.access.awaitRun(this.runId), this.runId) as T;
  }

  private async row(): Promise<RunRow> {
    const row = await this.access.loadRun(this.runId);
    if (!row) throw new RunNotFoundError(this.runId);
    return row;
  }
}
