import type { Codec } from '../../codec/Codec';
import type { RunStore } from '../../store/RunStore';

/** Where a replay run takes its recorded model calls from. */
export interface ReplaySource {
  /** The run being replayed. */
  readonly sourceRunId: string;
  /** Steps at or after this seq run again; model calls there may be answered from the source. */
  readonly fromSeq: number;
  /** True to call every model again instead of answering from the source. */
  readonly callModels: boolean;
}

/** The seqs of the steps that asked a replay's source (model calls), and of those it answered. */
export interface ReplayAnswers {
  readonly asked: number[];
  readonly answered: number[];
}

/**
 * The replay runs executing in this process, each with the run it replays: a step that asks
 * (a model call) is answered with the source's recorded result at the same seq, under the same
 * name, when that result says it was made from the same input. Which seqs were answered so
 * (and which asked) is kept for
 * the replay's report.
 */
export class ReplaySources {
  private readonly sources = new Map<string, { source: ReplaySource; answers: ReplayAnswers }>();

  constructor(
    private readonly store: Pick<RunStore, 'loadStep'>,
    private readonly codec: Codec,
  ) {}

  register(runId: string, source: ReplaySource): void {
    this.sources.set(runId, { source, answers: { asked: [], answered: [] } });
  }

  /** Forgets the replay run; which of its steps asked its source, and which it answered. */
  release(runId: string): ReplayAnswers {
    const entry = this.sources.get(runId);
    this.sources.delete(runId);
    return entry?.answers ?? { asked: [], answered: [] };
  }

  /**
   * The source's completed result of step `seq` named `name`, if `runId` is a replay that
   * answers model calls from its source and `matches` accepts that result; else undefined.
   */
  async answer(
    runId: string,
    seq: number,
    name: string,
    matches: (recorded: unknown) => boolean,
  ): Promise<unknown> {
    const entry = this.sources.get(runId);
    if (!entry || seq < entry.source.fromSeq) return undefined;
    entry.answers.asked.push(seq);
    if (entry.source.callModels) return undefined;
    const row = await this.store.loadStep(entry.source.sourceRunId, seq);
    if (!row || row.name !== name || row.status !== 'completed' || row.output === null) {
      return undefined;
    }
    const recorded = this.codec.decode(row.output, `step #${seq} "${name}" of the replayed run`);
    if (!matches(recorded)) return undefined;
    entry.answers.answered.push(seq);
    return recorded;
  }
}
