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
  /** `Class.method`, the address of hooks and messages. */
  readonly target: string;
}

/** One attempt of a body whose writes commit in the same transaction as its checkpoint. */
export type TransactionalAttempt = (
  step: StepWrite,
  attempt: number,
  body: (manager: EntityManager) => Promise<unknown>,
) => Promise<unknown>;

/**
 * How a step's outcome is stored: exactly one writer per step, chosen when its method's
 * plan is compiled (plain, transactional, at-most-once, global key).
 */
export interface CheckpointWriter {
  /**
   * Before the first attempt: an at-most-once step's intent marker, a global key's claim.
   * Returns the stored output another run recorded for the same global key, to take
   * instead of running the body. Absent when a step needs nothing before its body (no await
   * on the hot path).
   */
  begin?(step: StepWrite): Promise<string | undefined>;
  /** Stores the outcome; returns what is stored (another process's row wins a race). */
  write(step: StepWrite, row: StepRow): Promise<StepRow>;
  /** The run parks at this step for an operator: give back what `begin` took. */
  abandon(step: StepWrite): Promise<void>;
  /** Transactional steps only: runs one attempt so that its writes commit with its checkpoint. */
  readonly attempt?: TransactionalAttempt;
}
