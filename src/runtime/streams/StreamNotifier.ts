/**
 * Wakes readers in this process when a run's stream gets a batch or the run ends: readers of
 * a run executing here wait on this, not on a timer.
 */
export class StreamNotifier {
  private readonly waiting = new Map<string, Set<() => void>>();

  /** Resolves at the next notice for `runId` (or `wakeAll`); `cancel` drops the wait. */
  next(runId: string): { promise: Promise<void>; cancel: () => void } {
    let listener!: () => void;
    const promise = new Promise<void>((resolve) => (listener = resolve));
    const set = this.waiting.get(runId) ?? new Set();
    set.add(listener);
    this.waiting.set(runId, set);
    const cancel = (): void => {
      set.delete(listener);
      if (set.size === 0 && this.waiting.get(runId) === set) this.waiting.delete(runId);
    };
    return { promise: promise.finally(cancel), cancel };
  }

  /** Something changed for `runId`: a batch was stored, or the run ended. */
  notify(runId: string): void {
    const set = this.waiting.get(runId);
    if (!set) return;
    this.waiting.delete(runId);
    for (const listener of set) listener();
  }

  /** Wakes every reader (the runtime is closing). */
  wakeAll(): void {
    for (const runId of [...this.waiting.keys()]) this.notify(runId);
  }
}
