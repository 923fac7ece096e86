import type { EntityManager } from 'typeorm';
import type { StepRow } from '../../../store/rows';
import type { RunState } from '../RunState';

/** The step whose checkpoint is being written. */
export interface StepWrite {
  readonly run: RunState;
  readonly seq: number;
  readonly name: string;
  readonly key: string;
  /** The key to store with the step: its own (`@Idempotent({ key })`), null for the default. */
  readonly storedKey: string | null;
  readonly startedAt: number;
  /** `Class.method` (or an inline step's name), the address of hooks and messages. */
  readonly target: string;
}

/** One attempt of a step body; a transactional step's is given its transaction's manager. */
export type AttemptBody = (manager: EntityManager | undefined) => Promise<unknown>;

/**
 * How a step's outcome is stored: exactly one writer per step, chosen when its plan is
 * compiled (plain, transactional, at-most-once, global key). Every writer has every member.
 */
export interface CheckpointWriter {
  /**
   * Before the first attempt: an at-most-once step's intent marker, a global key's claim.
   * Resolves to the stored output another run recorded for the same global key, to take
   * instead of running the body. Returns undefined (not a promise) when the step needs nothing
   * before its body: the hot path then awaits nothing.
   */
  begin(step: StepWrite): Promise<string | undefined> | undefined;
  /** Runs one attempt of the body: as it is, or in a transaction with its checkpoint. */
  attempt(step: StepWrite, attempt: number, body: AttemptBody): Promise<unknown>;
  /**
   * Stores the outcome; returns what is stored (another process's row wins a race). Returns
   * `row` itself (not a promise) when it was stored before the call returned: the hot path
   * then awaits nothing.
   */
  write(step: StepWrite, row: StepRow): StepRow | Promise<StepRow>;
  /** The run parks at this step for an operator: give back what `begin` took. */
  abandon(step: StepWrite): Promise<void>;
}

/** The attempt of a step whose body runs as it is (every writer but the transactional one). */
export function attemptAsItIs(_step: StepWrite, _attempt: number, body: AttemptBody) {
  return body(undefined);
}
