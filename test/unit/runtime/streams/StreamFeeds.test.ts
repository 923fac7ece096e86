import { realClock } from '../../../../src/ground/Clock';
import { StreamFeeds } from '../../../../src/runtime/streams/StreamFeeds';
import { StreamNotifier } from '../../../../src/runtime/streams/StreamNotifier';
import type { StreamBatchRow, StreamStore } from '../../../../src/store/StreamStore';

const batch: StreamBatchRow = {
  runId: 'r',
  stream: 'llm',
  firstOffset: 0,
  count: 2,
  chunks: '["a","b"]',
  restart: null,
  closed: false,
  stepSeq: 0,
  createdAt: 0,
};

/** A store of one waiting run with one batch, counting what it is asked. */
function storeOfOneBatch(): { store: StreamStore; calls: string[] } {
  const calls: string[] = [];
  const store = {
    runStatus: (): Promise<'waiting'> => {
      calls.push('status');
      return Promise.resolve('waiting');
    },
    lastBatch: (): Promise<StreamBatchRow[]> => {
      calls.push('last');
      return Promise.resolve([batch]);
    },
    read: (_run: string, _stream: string, from: number): Promise<StreamBatchRow[]> => {
      calls.push(`read ${from}`);
      return Promise.resolve(from < 2 ? [batch] : []);
    },
  } as unknown as StreamStore;
  return { store, calls };
}

describe('StreamFeeds', () => {
  const deps = (store: StreamStore) => ({
    store,
    clock: realClock,
    notifier: new StreamNotifier(),
    executingHere: () => false,
    pollMs: 60_000,
  });

  it('readers of one stream share one feed, and readers at one offset share one read', async () => {
    const { store, calls } = storeOfOneBatch();
    const feeds = new StreamFeeds(deps(store));
    const a = feeds.join('r', 'llm');
    const b = feeds.join('r', 'llm');
    expect(b.feed).toBe(a.feed);
    await a.feed.opened;
    expect(a.feed.end).toBe(2);
    const before = calls.length;
    const [first, second] = await Promise.all([a.feed.page(0), b.feed.page(0)]);
    expect(first).toEqual([batch]);
    expect(second).toBe(first);
    expect(calls.slice(before).filter((c) => c === 'read 0')).toHaveLength(1);
    a.release();
    b.release();
    feeds.closeAll();
  });

  it('the last reader to leave stops the feed; the next reader gets a new one', async () => {
    const { store } = storeOfOneBatch();
    const feeds = new StreamFeeds(deps(store));
    const a = feeds.join('r', 'llm');
    await a.feed.opened;
    expect(feeds.size).toBe(1);
    a.release();
    a.release(); // a second release does nothing
    expect(feeds.size).toBe(0);
    const b = feeds.join('r', 'llm');
    expect(b.feed).not.toBe(a.feed);
    b.release();
  });
});
