import type { Codec } from '../../codec/Codec';
import { InvalidArgumentError } from '../../errors/InvalidArgumentError';
import type { Clock } from '../../ground/Clock';
import type { Lifecycle } from '../../ground/Lifecycle';
import { assertRunId, assertText } from '../../model/identifiers';
import type { StreamStore } from '../../store/StreamStore';
import type { StreamSummary } from '../../model/StreamSummary';
import type { RunState } from '../execution/RunState';
import type { RuntimeEvents } from '../execution/RuntimeEvents';
import { readStreamEntries } from './readStreamEntries';
import { StreamBuffer, type StreamAuthor } from './StreamBuffer';
import { StreamFeeds } from './StreamFeeds';
import type { ReadStreamOptions, StreamEntry } from './StreamEntry';
import { StreamNotifier } from './StreamNotifier';
import { BufferedStreamWriter, type StreamWriter } from './StreamWriter';

/** The longest stream name. */
export const MAX_STREAM_NAME_LENGTH = 200;

/** What the streams of a runtime use. */
export interface StreamsDeps {
  readonly store: StreamStore;
  readonly codec: Codec;
  readonly clock: Clock;
  readonly lifecycle: Lifecycle;
  readonly executingHere: (runId: string) => boolean;
  /** Where readers' first sight of each batch is told (`stream.seen`). */
  readonly events: RuntimeEvents;
  /** How often a reader reads the store for a run executing in another process. Default 25. */
  readonly pollMs?: number;
}

/**
 * A runtime's durable streams: writers for the runs executing here (batched per claim and
 * stream), and readers of any run's streams, woken in this process by the writers. Readers of
 * one stream share one poller here, however many they are.
 */
export class Streams {
  private readonly notifier = new StreamNotifier();
  private readonly feeds: StreamFeeds;

  constructor(private readonly deps: StreamsDeps) {
    const { store, clock, executingHere, events } = deps;
    const notifier = this.notifier;
    this.feeds = new StreamFeeds({
      store,
      clock,
      notifier,
      executingHere,
      events,
      pollMs: deps.pollMs ?? 25,
    });
    deps.lifecycle.onClosed(() => {
      this.feeds.closeAll();
      this.notifier.wakeAll();
    });
  }

  /** A writer of stream `name` of the run `run` (one buffer per claim and stream). */
  writer<T>(
    run: RunState,
    name: string,
    currentAuthor: () => StreamAuthor | null,
  ): StreamWriter<T> {
    assertStreamName(name, 'stream(): name');
    const { store, clock, codec } = this.deps;
    const buffer = run.buffer(
      `stream:${name}`,
      () => new StreamBuffer(run.runId, run.epoch, name, store, clock, this.notifier),
    );
    return new BufferedStreamWriter<T>(name, buffer, codec, currentAuthor);
  }

  /** The entries of stream `name` of run `runId` from `options.from`, stored then live. */
  read<T>(
    runId: string,
    name: string,
    options: ReadStreamOptions = {},
  ): AsyncIterable<StreamEntry<T>> {
    assertRunId(runId, 'readStream(): runId');
    assertStreamName(name, 'readStream(): name');
    const from = options.from ?? 0;
    if (!Number.isSafeInteger(from) || from < 0) {
      throw new InvalidArgumentError(
        'readStream(): from',
        `must be an offset (an integer ≥ 0), got ${String(from)}`,
      );
    }
    const deps = { codec: this.deps.codec, feeds: this.feeds, lifecycle: this.deps.lifecycle };
    return {
      [Symbol.asyncIterator]: () =>
        readStreamEntries<T>(deps, runId, name, from, options.signal)[Symbol.asyncIterator](),
    };
  }

  /** The streams run `runId` wrote to. */
  list(runId: string): Promise<StreamSummary[]> {
    assertRunId(runId, 'streams(): runId');
    return this.deps.store.list(runId);
  }

  /** A run executing here ended: its readers here finish. */
  runEnded(runId: string): void {
    this.notifier.notify(runId);
  }
}

/** Checks a stream name: 1 to 200 characters of well-formed Unicode, no NUL. */
export function assertStreamName(name: unknown, where: string): asserts name is string {
  assertText(name, where, MAX_STREAM_NAME_LENGTH);
}
