import type { Codec } from '../codec/Codec';
import type { RunStatus } from '../model/RunStatus';
import type { RunRow, StepRow } from '../store/rows';

/** A step whose outcome differs between the replayed run and its replay. */
export interface ReplayStepChange {
  readonly seq: number;
  readonly name: string;
  /** The original's result (or error); undefined when it has no step there. */
  readonly before: unknown;
  /** The replay's result (or error); undefined when it has no step there. */
  readonly after: unknown;
}

/**
 * What a replay changed (`runtime.replay()`, `waymark replay`): the run's outcome before and
 * after, the steps whose outcome differs, and which model calls were answered from the
 * original's recording (same step, seq and input) and which were made again.
 */
export interface ReplayReport {
  readonly sourceRunId: string;
  readonly runId: string;
  readonly fromSeq: number;
  readonly status: { readonly before: RunStatus; readonly after: RunStatus };
  /** The run's result (or error) before and after; `changed` compares them as stored. */
  readonly result: { readonly before: unknown; readonly after: unknown; readonly changed: boolean };
  readonly steps: readonly ReplayStepChange[];
  /** Seqs of model calls at or after `fromSeq`: answered from the recording, or called. */
  readonly modelCalls: { readonly replayed: readonly number[]; readonly called: readonly number[] };
}

/** Both runs as stored, and the seqs of model calls the replay made and answered from the original. */
export interface ReplayedRuns {
  readonly source: { readonly run: RunRow; readonly steps: readonly StepRow[] };
  readonly replay: { readonly run: RunRow; readonly steps: readonly StepRow[] };
  readonly fromSeq: number;
  readonly answers: { readonly asked: readonly number[]; readonly answered: readonly number[] };
}

/** Compares a replay with the run it replayed, outcome by outcome as stored. */
export function replayReport(runs: ReplayedRuns, codec: Codec): ReplayReport {
  const { source, replay, fromSeq } = runs;
  const decode = (text: string | null, what: string): unknown =>
    text === null ? undefined : codec.decode(text, what);
  const outcome = (run: RunRow): string | null => run.result ?? run.error;
  const before = new Map(source.steps.map((s) => [s.seq, s]));
  const after = new Map(replay.steps.map((s) => [s.seq, s]));
  const seqs = [...new Set([...before.keys(), ...after.keys()])].sort((a, b) => a - b);
  const steps: ReplayStepChange[] = [];
  for (const seq of seqs) {
    const b = before.get(seq);
    const a = after.get(seq);
    if (b && a && b.name === a.name && b.status === a.status && b.output === a.output) continue;
    steps.push({
      seq,
      name: (a ?? b)!.name,
      before: decode(b?.output ?? null, `step #${seq} of "${source.run.id}"`),
      after: decode(a?.output ?? null, `step #${seq} of "${replay.run.id}"`),
    });
  }
  const answered = new Set(runs.answers.answered);
  // A model call asked once per attempt; each seq counts once.
  const modelSeqs = [...new Set(runs.answers.asked)].sort((a, b) => a - b);
  return {
    sourceRunId: source.run.id,
    runId: replay.run.id,
    fromSeq,
    status: { before: source.run.status, after: replay.run.status },
    result: {
      before: decode(outcome(source.run), `result of "${source.run.id}"`),
      after: decode(outcome(replay.run), `result of "${replay.run.id}"`),
      changed: outcome(source.run) !== outcome(replay.run),
    },
    steps,
    modelCalls: {
      replayed: modelSeqs.filter((seq) => answered.has(seq)),
      called: modelSeqs.filter((seq) => !answered.has(seq)),
    },
  };
}
