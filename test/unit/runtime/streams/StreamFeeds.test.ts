import { realClock, type Clock } from '../../../../src/ground/Clock';
import { quietConsoleLogger } from '../../../../src/ground/Logger';
import { RuntimeEvents, type WaymarkEvents } from '../../../../src/runtime/execution/RuntimeEvents';
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
  const deps = (
    store: StreamStore,
    clock: Clock = realClock,
    events = new RuntimeEvents(quietConsoleLogger),
  ) => ({
    store,
    clock,
    notifier: new StreamNotifier(),
    executingHere: () => false,
    pollMs: 60_000,
    events,
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

  it('tells how late readers here first saw each new batch, and not of batches stored before they came', async () => {
    const { store } = storeOfOneBatch();
    const later: StreamBatchRow = { ...batch, firstOffset: 2, count: 3, createdAt: 10_250 };
    const reads = store.read.bind(store);
    store.read = (run, stream, from, limit) =>
      from === 2 ? Promise.resolve([later]) : reads(run, stream, from, limit);
    const events = new RuntimeEvents(quietConsoleLogger);
    const seen: Array<WaymarkEvents['stream.seen']> = [];
    events.on('stream.seen', (event) => seen.push(event));
    let now = 10_000; // when the reader came; the first batch (written at 0) is history
    const clock: Clock = { now: () => now, sleep: (ms, signal) => realClock.sleep(ms, signal) };
    const feeds = new StreamFeeds(deps(store, clock, events));
    const reader = feeds.join('r', 'llm');
    await reader.feed.opened;
    expect(reader.feed.end).toBe(2);
    now = 11_000;
    await reader.feed.page(2);
    expect(reader.feed.end).toBe(5);
    expect(seen).toEqual([{ runId: 'r', stream: 'llm', chunks: 3, lagMs: 750 }]);
    reader.release();
  });
});
