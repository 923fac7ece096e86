import { RunNotFoundError } from '../errors/RunNotFoundError';
import type { RunOutcome } from './RunOutcome';
import type { RuntimeKernel } from './RuntimeKernel';

/** How often a caller waiting on a released run looks at the store (a worker elsewhere may finish it). */
const POLL_MS = 1000;

/**
 * Lets a caller wait for a run's final outcome. A run released to `waiting` is resumed by
 * the waiting caller when it is due — unless a worker (here or elsewhere) gets to it first
 * — and a signal sent in this process wakes the caller at once.
 */
export class OutcomeWaiter {
  private readonly wakers = new Map<string, Set<() => void>>();

  constructor(private readonly kernel: RuntimeKernel) {}

  async awaitOutcome(runId: string, first: Promise<RunOutcome>): Promise<RunOutcome> {
    const { store, launcher, clock } = this.kernel;
    for (let outcome = await first; ;) {
      if (outcome.status !== 'waiting') return outcome;
      if (outcome.wakeAt === null || outcome.wakeAt > clock.now()) {
        await this.waitUntil(runId, outcome.wakeAt);
      }
      const row = await store.loadRun(runId);
      if (!row) throw new RunNotFoundError(runId);
      const due = row.status !== 'waiting' || (row.wakeAt !== null && row.wakeAt <= clock.now());
      outcome = due
        ? await (launcher.outcomeOf(runId) ?? launcher.resumeRow(row))
        : { status: 'waiting', wakeAt: row.wakeAt };
    }
  }

  /** Wakes callers waiting on `runId` (a signal for it was stored). */
  wake(runId: string): void {
    for (const wake of this.wakers.get(runId) ?? []) wake();
  }

  /** Until `wakeAt` on the runtime's clock, a poll interval, or a wake-up, whichever is first. */
  private async waitUntil(runId: string, wakeAt: number | null): Promise<void> {
    const { clock, lifecycle } = this.kernel;
    const stop = new AbortController();
    const signal = AbortSignal.any([stop.signal, lifecycle.signal]);
    let wake!: () => void;
    const woken = new Promise<void>((resolve) => (wake = resolve));
    const set = this.wakers.get(runId) ?? new Set();
    set.add(wake);
    this.wakers.set(runId, set);
    const timers: Array<Promise<void>> = [woken, abortable(POLL_MS, signal)];
    if (wakeAt !== null) timers.push(clock.sleep(Math.max(0, wakeAt - clock.now()), signal));
    try {
      await Promise.race([
        ...timers.map((t) => t.catch(() => undefined)),
        rejection(lifecycle.signal),
      ]);
    } finally {
      stop.abort();
      set.delete(wake);
      if (set.size === 0) this.wakers.delete(runId);
    }
  }
}

/** A real-time wait (the caller also polls while a fake clock stands still). */
function abortable(ms: number, signal: AbortSignal): Promise<void> {
  return new Promise((resolve) => {
    const timer = setTimeout(resolve, ms);
    signal.addEventListener('abort', () => {
      clearTimeout(timer);
      resolve();
    });
  });
}

function rejection(signal: AbortSignal): Promise<never> {
  return new Promise((_, reject) => {
    if (signal.aborted) reject(signal.reason as Error);
    signal.addEventListener('abort', () => reject(signal.reason as Error), { once: true });
  });
}
