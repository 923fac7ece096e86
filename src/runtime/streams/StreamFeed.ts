import { RunNotFoundError } from '../../errors/RunNotFoundError';
import type { Clock } from '../../ground/Clock';
import { isTerminalStatus } from '../../model/RunStatus';
import type { StreamBatchRow, StreamStore } from '../../store/StreamStore';
import type { RuntimeEvents } from '../execution/RuntimeEvents';
import type { StreamNotifier } from './StreamNotifier';

/** What a feed uses. */
export interface StreamFeedDeps {
  readonly store: StreamStore;
  readonly clock: Clock;
  readonly notifier: StreamNotifier;
  /** Whether the run executes in this process (then its writes notify; polling is rare). */
  readonly executingHere: (runId: string) => boolean;
  /** How often the store is read for a run executing in another process. */
  readonly pollMs: number;
  /** Told when readers here first see a batch (`stream.seen`: how late they saw it). */
  readonly events: RuntimeEvents;
}

/** The most batches one read of a stream returns. */
export const FEED_PAGE = 100;
/** A feed of a run executing here re-checks this rarely, in case the run moved away. */
const LOCAL_RECHECK_MS = 1_000;
/** A stream with nothing new for this long (a run waiting for a signal) is polled less often. */
const QUIET_AFTER_MS = 5_000;
const QUIET_POLL_MS = 250;

/** A wait for the feed's next change; `cancel` drops it. */
export interface FeedChange {
  readonly promise: Promise<void>;
  cancel(): void;
}

/**
 * One stream of one run as this process sees it, shared by all its readers here: one poller
 * learns where the stream ends and whether the run ended, and readers read pages by offset
 * (readers at one offset share one read). It polls only while it has readers.
 */
export class StreamFeed {
  /** The offset after the last entry seen stored. */
  end = 0;
  /** A stored batch closes the stream. */
  closed = false;
  /** The run ended and nothing was stored after: readers at `end` are done. */
  finished = false;
  /** Resolves once the run is known to exist (`RunNotFoundError` when it does not). */
  readonly opened: Promise<void>;
  private failure: Error | undefined;
  private listeners = new Set<() => void>();
  private readonly reads = new Map<number, Promise<StreamBatchRow[]>>();
  /** The poller's last page, for the readers it just woke. */
  private latest: { from: number; batches: StreamBatchRow[] } | undefined;
  private readonly stop = new AbortController();
  private resolveOpened!: (failure?: Error) => void;
  /** When the first reader came: batches written before are history, not news. */
  private readonly openedAt: number;

  constructor(
    readonly runId: string,
    readonly name: string,
    private readonly deps: StreamFeedDeps,
  ) {
    this.openedAt = deps.clock.now();
    this.opened = new Promise<void>((resolve, reject) => {
      this.resolveOpened = (failure) => (failure === undefined ? resolve() : reject(failure));
    });
    this.opened.catch(() => undefined);
    void this.poll().catch((error: unknown) => this.fail(error));
  }

  /** A store error stopped the feed: a new reader needs a new one. */
  get failed(): boolean {
    return this.failure !== undefined;
  }

  /** Throws what stopped the feed (a store error), if anything did. */
  assertHealthy(): void {
    if (this.failure !== undefined) throw this.failure;
  }

  /** Resolves at the feed's next change (a new end, the run's end, a failure, a close). */
  nextChange(): FeedChange {
    let listener!: () => void;
    const promise = new Promise<void>((resolve) => (listener = resolve));
    this.listeners.add(listener);
    return { promise, cancel: () => this.listeners.delete(listener) };
  }

  /** Up to {@link FEED_PAGE} batches holding offsets from `from` on, in order. */
  page(from: number): Promise<StreamBatchRow[]> {
    if (this.latest?.from === from && this.latest.batches.length > 0)
      return Promise.resolve(this.latest.batches);
    const shared = this.reads.get(from);
    if (shared) return shared;
    const read = this.deps.store.read(this.runId, this.name, from, FEED_PAGE).then((batches) => {
      this.learn(batches);
      return batches;
    });
    this.reads.set(from, read);
    const forget = (): void => void this.reads.delete(from);
    read.then(forget, forget);
    return read;
  }

  /** Stops polling and wakes the readers (the last one left, or the runtime closes). */
  close(): void {
    this.stop.abort();
    this.changed();
  }

  private async poll(): Promise<void> {
    const { store, clock, notifier, executingHere } = this.deps;
    if ((await store.runStatus(this.runId)) === undefined) {
      throw new RunNotFoundError(this.runId);
    }
    this.learn(await store.lastBatch(this.runId, this.name));
    this.resolveOpened();
    let lastNewAt = clock.now();
    for (let ended = false; !this.stop.signal.aborted && !this.closed;) {
      const wait = notifier.next(this.runId); // armed before reading: no notice is missed
      const from = this.end;
      const batches = await store.read(this.runId, this.name, from, FEED_PAGE);
      if (this.stop.signal.aborted) return wait.cancel();
      this.latest = { from, batches };
      if (this.learn(batches)) lastNewAt = clock.now();
      if (batches.length === FEED_PAGE || this.closed) {
        wait.cancel();
        continue;
      }
      // The run's end is written after its last chunk: one more read after seeing it.
      if (ended) {
        wait.cancel();
        this.finished = true;
        break;
      }
      const status = await store.runStatus(this.runId);
      // A parked run ends the reading too: it writes nothing until an operator acts.
      if (status === undefined || isTerminalStatus(status) || status === 'needs_attention') {
        ended = true;
        wait.cancel();
        continue;
      }
      const quiet = clock.now() - lastNewAt > QUIET_AFTER_MS;
      const pollMs = quiet ? Math.max(this.deps.pollMs, QUIET_POLL_MS) : this.deps.pollMs;
      await this.sleep(wait, executingHere(this.runId) ? LOCAL_RECHECK_MS : pollMs);
    }
    this.changed();
  }

  /** Takes in what a read found; true when the stream grew. */
  private learn(batches: readonly StreamBatchRow[]): boolean {
    let grew = false;
    for (const batch of batches) {
      const end = batch.firstOffset + batch.count;
      if (end > this.end) {
        this.end = end;
        grew = true;
        // Written since the first reader came: news, whose delay is the stream's lag.
        if (batch.createdAt >= this.openedAt) this.seen(batch);
      }
      if (batch.closed && !this.closed) {
        this.closed = true;
        grew = true;
      }
    }
    if (grew) this.changed();
    return grew;
  }

  private seen(batch: StreamBatchRow): void {
    const lagMs = Math.max(0, this.deps.clock.now() - batch.createdAt);
    const [runId, stream, chunks] = [this.runId, this.name, batch.count];
    this.deps.events.emit('stream.seen', { runId, stream, chunks, lagMs });
  }

  private fail(error: unknown): void {
    this.failure = error instanceof Error ? error : new Error(String(error));
    this.resolveOpened(this.failure);
    this.changed();
  }

  private changed(): void {
    const listeners = this.listeners;
    this.listeners = new Set();
    for (const listener of listeners) listener();
  }

  /** Waits for the writer's notice, `ms`, or the feed's close. */
  private async sleep(wait: { promise: Promise<void>; cancel: () => void }, ms: number) {
    const timer = new AbortController();
    try {
      await Promise.race([
        wait.promise,
        this.deps.clock
          .sleep(ms, AbortSignal.any([timer.signal, this.stop.signal]))
          .catch(() => undefined),
      ]);
    } finally {
      timer.abort();
      wait.cancel();
    }
  }
}
