import { isLeaseLostError } from '../../errors/LeaseLostError';
import { RunNotFoundError } from '../../errors/RunNotFoundError';
import { realClock, type Clock } from '../../ground/Clock';
import type { Lifecycle } from '../../ground/Lifecycle';
import type { RunRow } from '../../store/rows';
import type { RunStore } from '../../store/RunStore';
import type { WorkflowCall } from './WorkflowCall';
import { seenToEnd, type RunOutcome } from './RunOutcome';
import type { Executions } from './Executions';
import type { RunAcquirer } from './RunAcquirer';
import type { RunOperations } from './RunScope';
import { identityOf, type StoredCalls } from './StoredCalls';

/** How often a caller waiting on a released run looks at the store (a worker elsewhere may finish it). */
const POLL_MS = 1000;

/** How a wait resumes its run: with the caller's call, if it has one. */
interface Resume {
  readonly operations: RunOperations;
  readonly call: WorkflowCall | undefined;
}

/** What waiting for runs uses. */
export interface RunWaitersDeps {
  readonly store: RunStore;
  readonly clock: Clock;
  readonly lifecycle: Lifecycle;
  readonly executions: Executions;
  readonly acquirer: RunAcquirer;
  readonly calls: StoredCalls;
}

/**
 * Lets callers wait for a run's final outcome: one wait per run, however many callers await
 * it. A run released to `waiting` is resumed here when it is due — unless a worker (here or
 * elsewhere) gets to it first — and a signal sent in this process wakes the wait at once.
 * Every timer and listener of a wait is removed when that wait ends, so a caller can wait
 * days for an approval at constant cost.
 */
export class RunWaiters {
  private readonly waits = new Map<string, Promise<RunOutcome>>();
  private readonly wakers = new Map<string, Set<() => void>>();

  constructor(private readonly deps: RunWaitersDeps) {}

  /**
   * Waits until the run ends or parks: `first` is how it stands now (its execution here, or
   * a watch on the store); `call` is the caller's own call, to resume with, if it has one;
   * resumed here, the run does `operations`.
   */
  await(
    runId: string,
    first: () => Promise<RunOutcome>,
    operations: RunOperations,
    call?: WorkflowCall,
  ): Promise<RunOutcome> {
    const existing = this.waits.get(runId);
    if (existing) return existing;
    const wait = this.loop(runId, first, { operations, call });
    this.waits.set(runId, wait);
    const forget = (): void => void this.waits.delete(runId);
    wait.then(forget, forget);
    return wait;
  }

  /** Wakes the wait on `runId` (a signal for it was stored in this process). */
  wake(runId: string): void {
    for (const wake of this.wakers.get(runId) ?? []) wake();
  }

  private async loop(
    runId: string,
    first: () => Promise<RunOutcome>,
    resume: Resume,
  ): Promise<RunOutcome> {
    const { store, clock } = this.deps;
    let outcome = await this.retryLost(first);
    for (;;) {
      if (outcome.status !== 'waiting') return outcome;
      if (outcome.wakeAt === null || outcome.wakeAt > clock.now()) {
        await this.pause(runId, outcome.wakeAt);
      }
      const row = await store.loadRun(runId);
      if (!row) throw new RunNotFoundError(runId);
      const due = row.status !== 'waiting' || (row.wakeAt !== null && row.wakeAt <= clock.now());
      // Waited on before it ended: whatever ends it now, the caller saw it happen.
      outcome = due
        ? seenToEnd(await this.retryLost(() => this.resume(row, resume)))
        : { status: 'waiting', wakeAt: row.wakeAt };
    }
  }

  /** Continues a stored run found due, here (joining its execution here if there is one). */
  private resume(row: RunRow, { operations, call }: Resume): Promise<RunOutcome> {
    const { executions, acquirer, calls } = this.deps;
    const acquire = (superseded: () => boolean) =>
      acquirer.fromRow(row, call ?? calls.callFor(row), {
        takePending: false,
        announce: false,
        superseded,
      });
    const identity = identityOf(row);
    return executions.ensure(row.id, { kind: 'acquire', identity, operations, acquire }).outcome;
  }

  /** An execution here that lost its claim to another (a frozen process) is looked at again. */
  private async retryLost(work: () => Promise<RunOutcome>): Promise<RunOutcome> {
    try {
      return await work();
    } catch (error) {
      if (!isLeaseLostError(error)) throw error;
      return { status: 'waiting', wakeAt: this.deps.clock.now() };
    }
  }

  /** Until `wakeAt` on the runtime's clock, a poll interval, or a wake-up, whichever is first. */
  private async pause(runId: string, wakeAt: number | null): Promise<void> {
    const { clock, lifecycle } = this.deps;
    if (lifecycle.signal.aborted) throw lifecycle.signal.reason;
    const done = new AbortController();
    const onStop = (): void => done.abort(lifecycle.signal.reason);
    lifecycle.signal.addEventListener('abort', onStop, { once: true });
    let wake!: () => void;
    const woken = new Promise<void>((resolve) => (wake = resolve));
    const wakers = this.wakers.get(runId) ?? new Set();
    wakers.add(wake);
    this.wakers.set(runId, wakers);
    const ignore = (): void => undefined;
    const racers = [woken, realClock.sleep(POLL_MS, done.signal).catch(ignore)];
    if (wakeAt !== null) racers.push(clock.sleep(wakeAt - clock.now(), done.signal).catch(ignore));
    try {
      await Promise.race(racers);
    } finally {
      done.abort();
      lifecycle.signal.removeEventListener('abort', onStop);
      wakers.delete(wake);
      if (wakers.size === 0) this.wakers.delete(runId);
    }
    if (lifecycle.signal.aborted) throw lifecycle.signal.reason;
  }
}
