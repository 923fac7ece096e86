import { RunNotFoundError } from '../errors/RunNotFoundError';
import type { RunRow } from '../store/rows';
import { summarize } from '../store/RunQueries';
import { type RunSummary, type StepRecord } from '../model/RunRecords';
import type { HistoryPageOptions } from '../model/HistoryPage';
import type { RunStatus } from '../model/RunStatus';
import type { PendingSignal } from '../store/SignalStore';
import { storedValue, valueCharsOption } from '../model/StoredValue';
import { unwrapOutcome, type RunOutcome } from './execution/RunOutcome';

/** What a handle reads a run through (given by its runtime). */
export interface RunAccess {
  loadRun(runId: string): Promise<RunRow | undefined>;
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
   *
   * @example
   * ```ts
   * const run = await runtime.handle('po-1234').describe();
   * if (run.status === 'needs_attention') console.log(run.parkedReason, run.args?.json);
   * ```
   */
  async describe(options: { valueChars?: number } = {}): Promise<RunSummary> {
    const chars = valueCharsOption(options.valueChars, 'describe(): valueChars');
    const row = await this.row();
    return { ...summarize(row), args: storedValue(row.args, chars) };
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
