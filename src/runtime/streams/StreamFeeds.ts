import { StreamFeed, type StreamFeedDeps } from './StreamFeed';

/** A reader's hold on a feed; `release` when the reader leaves. */
export interface FeedLease {
  readonly feed: StreamFeed;
  release(): void;
}

/**
 * The feeds of a runtime, one per (run, stream) with readers in this process: the first
 * reader starts its poller, the last one to leave stops it.
 */
export class StreamFeeds {
  private readonly feeds = new Map<string, { feed: StreamFeed; readers: number }>();

  constructor(private readonly deps: StreamFeedDeps) {}

  /** The feed of stream `name` of run `runId`, held until `release()`. */
  join(runId: string, name: string): FeedLease {
    const key = JSON.stringify([runId, name]);
    let entry = this.feeds.get(key);
    if (!entry || entry.feed.failed) {
      entry = { feed: new StreamFeed(runId, name, this.deps), readers: 0 };
      this.feeds.set(key, entry);
    }
    const held = entry;
    held.readers++;
    let released = false;
    return {
      feed: held.feed,
      release: () => {
        if (released) return;
        released = true;
        if (--held.readers > 0) return;
        held.feed.close();
        if (this.feeds.get(key) === held) this.feeds.delete(key);
      },
    };
  }

  /** How many feeds poll now (a test's view of what readers cost). */
  get size(): number {
    return this.feeds.size;
  }

  /** Stops every feed and wakes its readers (the runtime is closing). */
  closeAll(): void {
    for (const { feed } of this.feeds.values()) feed.close();
    this.feeds.clear();
  }
}
