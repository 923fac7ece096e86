import type { HistoryPageOptions } from '../model/HistoryPage';
import type { ListRunsOptions, RunPage, StepRecord } from '../model/RunRecords';
import type { StreamSummary } from '../model/StreamSummary';
import type { RunQueries } from '../store/RunQueries';
import type { RunValueReads } from '../store/RunValueReads';
import type { RunStore } from '../store/RunStore';
import type { SignalStore } from '../store/SignalStore';
import type { Runs } from './Runs';
import { RunHandle, type RunAccess } from './RunHandle';
import type { ReadStreamOptions, StreamEntries } from './streams/StreamEntry';
import type { Streams } from './streams/Streams';

/** What reading runs uses. */
export interface RunReadsDeps {
  readonly queries: RunQueries;
  readonly values: RunValueReads;
  readonly streams: Streams;
  readonly store: RunStore;
  readonly signals: SignalStore;
  readonly runs: Runs;
}

/**
 * What is read of stored runs — pages of runs, step histories, streams — and the handles
 * that read one run. `WaymarkRuntime` delegates `list`, `history`, `streams`, `readStream`
 * and makes its handles here.
 */
export class RunReads {
  private readonly access: RunAccess;

  constructor(private readonly deps: RunReadsDeps) {
    const { store, queries, values, signals, runs } = deps;
    this.access = {
      loadRun: (runId) => store.loadRun(runId),
      describe: (runId, valueChars) => values.describe(runId, valueChars),
      outcome: (runId, valueChars) => values.outcome(runId, valueChars),
      wholeValue: (runId, of) => values.wholeValue(runId, of),
      history: (runId, page) => queries.history(runId, page),
      pendingSignals: (runId, name) => signals.pending(runId, name),
      awaitRun: (runId) => runs.awaitRun(runId),
    };
  }

  /** A handle on the run `runId` (not checked to exist). */
  handle<T>(runId: string): RunHandle<T> {
    return new RunHandle<T>(runId, this.access);
  }

  history(runId: string, page?: HistoryPageOptions): Promise<StepRecord[]> {
    return this.deps.queries.history(runId, page);
  }

  list(options?: ListRunsOptions): Promise<RunPage> {
    return this.deps.queries.list(options);
  }

  readStream<T>(runId: string, name: string, options?: ReadStreamOptions): StreamEntries<T> {
    return this.deps.streams.read<T>(runId, name, options);
  }

  streams(runId: string): Promise<StreamSummary[]> {
    return this.deps.streams.list(runId);
  }
}
