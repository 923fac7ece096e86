import type { RunStatus } from './RunStatus';
import type { StoredValue } from './StoredValue';
import type { ErrorSummary } from './ErrorSummary';

/** One entry of a run's history, for people and tools. */
export interface StepRecord {
  seq: number;
  name: string;
  /**
   * `retrying`: failed attempts stored, the next one due; `parked`: waiting for an operator;
   * `started`: an at-most-once step began and has no outcome (running, or its process died).
   */
  status: 'completed' | 'failed' | 'retrying' | 'parked' | 'started';
  attempts: number;
  startedAt: Date;
  finishedAt: Date | null;
  durationMs: number | null;
  /** For a failed, retrying or parked step: what it (last) threw. */
  error?: ErrorSummary;
  /** For a retrying step: when its next attempt is due. */
  nextAttemptAt?: Date;
  /**
   * The key the step used when `@Idempotent({ key })` gave it one (absent for the default
   * `runId:seq`, and for steps recorded before migration M0007).
   */
  idempotencyKey?: string;
  /** For a completed step: its stored result, cut at `valueChars` (see {@link StoredValue}). */
  output?: StoredValue;
}

/** A run as `runtime.list()` lists it. */
export interface RunSummary {
  runId: string;
  workflow: string;
  version: string | null;
  status: RunStatus;
  owner: string | null;
  parentRunId: string | null;
  /** For a `waiting` run: when it is due. */
  wakeAt: Date | null;
  /** For a parked run: the step it waits at. */
  parkedSeq: number | null;
  /**
   * For a `needs_attention` run: why it was parked, as `"<error name>: <message>"` (e.g. a
   * `NonDeterminismError` after a deploy); null otherwise, and for runs parked before
   * migration M0007.
   */
  parkedReason: string | null;
  /** What a waiting run waits for: `signal:<name>`, `sleep` or `retry`. */
  waitingFor: string | null;
  /** For a fork: the run it was copied from and the seq it diverged at. */
  forkedFrom: string | null;
  forkedSeq: number | null;
  /** When the run is cancelled if it has not ended (`@Workflow({ timeout })`, `deadline`). */
  deadlineAt?: Date | null;
  createdAt: Date;
  updatedAt: Date;
  /** From `describe()` only (not `list()`): the run's arguments, cut at `valueChars`. */
  args?: StoredValue;
}

/** Filters of `runtime.list()`. */
export interface ListRunsOptions {
  status?: RunStatus | RunStatus[];
  workflow?: string;
  /**
   * Only `waiting` runs waiting for this: `'signal'` (any `signal:<name>`, e.g. the runs an
   * approval screen lists), `'sleep'` or `'retry'`.
   */
  waitingFor?: 'signal' | 'sleep' | 'retry';
  /** At most this many runs (default 50, at most 1000). */
  limit?: number;
  /** From a previous page's `nextCursor`. */
  cursor?: string;
}

/** One page of runs, newest first. */
export interface RunPage {
  runs: RunSummary[];
  /** Pass as `cursor` to get the next page; absent on the last page. */
  nextCursor?: string;
}

/**
 * How an ended run ended, as stored and cut (see `RunHandle.outcome`): its result, or the
 * error it ended with, whose stored text has `length` characters.
 */
export type StoredOutcome = { result: StoredValue } | { error: ErrorSummary; length: number };

/** Which stored value `RunHandle.wholeValue` reads: the arguments, the outcome, or a step's output. */
export type WholeValueOf = 'args' | 'outcome' | { stepSeq: number };
