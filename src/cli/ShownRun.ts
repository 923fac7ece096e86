import type { RunSummary, StepRecord } from '../model/RunRecords';
import type { StoredValue } from '../model/StoredValue';

/** A step of `waymark show`: the stored record and the idempotency key it used. */
export interface ShownStep extends Omit<StepRecord, 'idempotencyKey'> {
  /**
   * The key the step used: its own (`@Idempotent({ key })`) as stored, else the default
   * `${runId}:${seq}`; null for waits (signals, timers), which have none.
   */
  idempotencyKey: string | null;
}

/**
 * `waymark show --json`: the run (with `args`), why it is not moving, every step (with
 * `output`: the codec's JSON) and what the keys shown are. A value over 16,384 characters
 * is its start as `{ json, truncated: true, length }` (whole with `--whole`).
 */
export interface ShownRun {
  run: Omit<RunSummary, 'args'> & { args: unknown };
  /** Why the run is not moving, in words; null while it runs or once it ended. */
  waitingReason: string | null;
  steps: Array<Omit<ShownStep, 'output'> & { output?: unknown }>;
  idempotencyKeyNote: string;
}

/** How an ended run ended: its result (or the start of a long one), or the error it ended with. */
export type ShownOutcome =
  | { readonly result: unknown }
  | { readonly resultPreview: StoredValue }
  | { readonly error: { readonly name: string; readonly message: string; readonly code?: string } };

/** Writes `waymark show`: the run, then its steps page by page as they are read, then the end. */
export interface ShownRunWriter {
  /** Characters of stored values (arguments, outputs) the writer shows; `Infinity` for whole. */
  readonly valueChars: number;
  /** Characters of error messages the writer shows (names and codes: at most 200); `Infinity` for whole. */
  readonly errorChars: number;
  /** `outcome` is null for a run that has not ended. */
  begin(run: RunSummary, waitingReason: string | null, outcome: ShownOutcome | null): void;
  steps(steps: readonly ShownStep[]): void;
  end(): void;
}

/** What the idempotency keys shown are; `--json` carries it too. */
export const IDEMPOTENCY_KEY_NOTE =
  'idempotency keys are the ones the steps used: their own from @Idempotent({ key }), else the default runId:seq ' +
  '(a step recorded before migration M0007 shows the default)';
