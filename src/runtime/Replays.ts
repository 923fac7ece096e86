import { randomUUID } from 'node:crypto';
import type { Codec } from '../codec/Codec';
import { ConfigurationError } from '../errors/ConfigurationError';
import { RunNotFoundError } from '../errors/RunNotFoundError';
import { assertRunId } from '../model/identifiers';
import type { RunStore } from '../store/RunStore';
import type { ReplayAnswers, ReplaySources } from './execution/ReplaySources';
import type { OperatorActions } from './OperatorActions';
import type { RunHandle } from './RunHandle';
import type { RunReads } from './RunReads';
import { replayReport, type ReplayedRuns, type ReplayReport } from './ReplayReport';
import type { Runs } from './Runs';

/** Options of `runtime.replay()`. */
export interface ReplayOptions {
  /** Steps before this seq are taken from the original's history; from it on they run again. */
  from: number;
  /**
   * Results that stand for the original's steps, by seq (before or after `from`): the replay
   * reads them as those steps' recorded outcomes, so what follows sees the changed value.
   */
  override?: Readonly<Record<number, unknown>>;
  /** The code the replay runs: the workflow as registered in this runtime now (the only choice). */
  code?: 'current';
  /** Call every model again instead of answering unchanged calls from the original's recording. */
  callModels?: boolean;
  /** The replay's run id; default `<runId>:replay-<8 hex digits>`. */
  runId?: string;
}

/** A replay: the new run, ended, and what it changed against the original. */
export interface Replay<T = unknown> {
  readonly run: RunHandle<T>;
  readonly report: ReplayReport;
}

/** What replays use. */
export interface ReplaysDeps {
  readonly operator: OperatorActions;
  readonly sources: ReplaySources;
  readonly store: Pick<RunStore, 'loadRun' | 'loadHistory'>;
  readonly reads: RunReads;
  readonly runs: Pick<Runs, 'awaitRun'>;
  readonly codec: Codec;
}

/**
 * Replays stored runs for evaluation: a fork (history before `from` copied, overrides applied)
 * that runs here to its end, its model calls answered from the original when their input is
 * unchanged, then compared with the original. The original is not touched.
 */
export class Replays {
  constructor(private readonly deps: ReplaysDeps) {}

  async replay<T>(runId: string, options: ReplayOptions): Promise<Replay<T>> {
    const { operator, sources, codec, reads, runs } = this.deps;
    if (options.code !== undefined && options.code !== 'current') {
      throw new ConfigurationError(
        `replay(): code must be 'current' (the registered workflow), got ${String(options.code)}`,
      );
    }
    const newRunId = options.runId ?? `${runId}:replay-${randomUUID().slice(0, 8)}`;
    assertRunId(newRunId, 'replay(): runId');
    const overrides = new Map<number, string>();
    for (const [key, value] of Object.entries(options.override ?? {})) {
      const seq = Number(key);
      if (!Number.isInteger(seq) || seq < 0) {
        throw new ConfigurationError(`replay(): override keys must be seqs, got "${key}"`);
      }
      overrides.set(seq, codec.encode(value, 'result'));
    }
    const callModels = options.callModels === true;
    sources.register(newRunId, { sourceRunId: runId, fromSeq: options.from, callModels });
    let answers: ReplayAnswers;
    try {
      await operator.fork(runId, { fromSeq: options.from, newRunId }, overrides);
      await runs.awaitRun(newRunId);
    } finally {
      answers = sources.release(newRunId);
    }
    const [source, replay] = await Promise.all([this.stored(runId), this.stored(newRunId)]);
    const report = replayReport({ source, replay, fromSeq: options.from, answers }, codec);
    return { run: reads.handle<T>(newRunId), report };
  }

  private async stored(runId: string): Promise<ReplayedRuns['source']> {
    const { store } = this.deps;
    const run = await store.loadRun(runId);
    if (!run) throw new RunNotFoundError(runId);
    return { run, steps: (await store.loadHistory(runId)).steps };
  }
}
