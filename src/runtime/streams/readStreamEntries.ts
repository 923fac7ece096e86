import type { Codec } from '../../codec/Codec';
import type { Lifecycle } from '../../ground/Lifecycle';
import type { StreamBatchRow } from '../../store/StreamStore';
import type { FeedChange } from './StreamFeed';
import type { StreamFeeds } from './StreamFeeds';
import type { StreamEntry, StreamRestart } from './StreamEntry';

/** What a reader uses. */
export interface StreamReaderDeps {
  readonly codec: Codec;
  readonly feeds: StreamFeeds;
  readonly lifecycle: Lifecycle;
}

/**
 * The entries of a stream from offset `from`: the stored ones, then live ones, until the
 * stream is closed or the run ends. Offsets are consecutive: no duplicate, no gap. The reader
 * reads a page only when asked for the next entry, and learns of new entries from the feed
 * it shares with every other reader of the stream in this process.
 */
export async function* readStreamEntries<T>(
  deps: StreamReaderDeps,
  runId: string,
  name: string,
  from: number,
  signal: AbortSignal | undefined,
): AsyncGenerator<StreamEntry<T>, void, undefined> {
  const lease = deps.feeds.join(runId, name);
  const feed = lease.feed;
  try {
    await feed.opened;
    for (let next = from; !signal?.aborted;) {
      deps.lifecycle.assertAlive(`read stream "${name}" of run "${runId}"`);
      feed.assertHealthy();
      const change = feed.nextChange(); // armed before looking: no change is missed
      if (next < feed.end) {
        change.cancel();
        const batches = await feed.page(next);
        for (const batch of batches) {
          for (const entry of decodeBatch<T>(deps.codec, batch, name)) {
            if (entry.offset < next) continue;
            next = entry.offset + 1;
            yield entry;
          }
          if (batch.closed) return;
        }
        if (batches.length > 0) continue;
      }
      if (feed.closed || feed.finished) return change.cancel();
      await until(change, signal);
    }
  } finally {
    lease.release();
  }
}

function* decodeBatch<T>(
  codec: Codec,
  batch: StreamBatchRow,
  name: string,
): Generator<StreamEntry<T>> {
  let offset = batch.firstOffset;
  // Chunks are written in steps only; a close() from workflow code stores none.
  const seq = batch.stepSeq ?? -1;
  if (batch.restart !== null) {
    yield { offset: offset++, seq, restart: JSON.parse(batch.restart) as StreamRestart };
  }
  const chunks = codec.decode(batch.chunks, `stream "${name}" at offset ${offset}`) as T[];
  for (const chunk of chunks) yield { offset: offset++, seq, chunk };
}

/** Waits for the feed's change or the abort signal, whichever comes first. */
async function until(change: FeedChange, signal: AbortSignal | undefined): Promise<void> {
  let onAbort: (() => void) | undefined;
  try {
    await Promise.race([
      change.promise,
      new Promise<void>((resolve) => {
        onAbort = resolve;
        if (signal?.aborted) resolve();
        signal?.addEventListener('abort', onAbort, { once: true });
      }),
    ]);
  } finally {
    if (onAbort) signal?.removeEventListener('abort', onAbort);
    change.cancel();
  }
}
