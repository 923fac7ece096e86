import { RunNotFoundError } from '../errors/RunNotFoundError';
import { summarize, type RunSummary, type StepRecord } from '../store/RunQueries';
import type { RunStatus } from '../store/RunStatus';
import { unwrapOutcome } from './RunOutcome';
import type { RuntimeKernel } from './RuntimeKernel';
import { waitForStoredOutcome } from './waitForStoredOutcome';

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
  constructor(
    readonly runId: string,
    private readonly kernel: RuntimeKernel,
  ) {}

  /** The run as stored now: status, owner, when a waiting run is due, where it is parked. */
  async describe(): Promise<RunSummary> {
    const row = await this.kernel.store.loadRun(this.runId);
    if (!row) throw new RunNotFoundError(this.runId);
    return summarize(row);
  }

  /** The run's stored status now. */
  async status(): Promise<RunStatus> {
    const row = await this.kernel.store.loadRun(this.runId);
    if (!row) throw new RunNotFoundError(this.runId);
    return row.status;
  }

  /** The run's step records in sequence order. */
  history(): Promise<StepRecord[]> {
    return this.kernel.queries.history(this.runId);
  }

  /**
   * Waits until the run ends and returns its result, or throws its error. Works whether
   * this process or another one executes the run. A run this process parks in
   * `needs_attention` rejects with the reason; one parked elsewhere is waited for.
   */
  async result(): Promise<T> {
    const { launcher } = this.kernel;
    const first = launcher.outcomeOf(this.runId) ?? waitForStoredOutcome(this.kernel, this.runId);
    return unwrapOutcome(await this.kernel.waiter.awaitOutcome(this.runId, first)) as T;
  }
}
