import type { RunRow } from '../../store/rows';
import type { RunOutcome } from './RunOutcome';
import type { RunState } from './RunState';

/**
 * What trying to execute a run here came to: this process claimed it (execute it), it has
 * an outcome already (ended, parked, not due), or another live holder has it (watch it).
 */
export type Acquisition =
  | { readonly kind: 'claimed'; readonly state: RunState; readonly resumed: boolean }
  | { readonly kind: 'settled'; readonly outcome: RunOutcome }
  | { readonly kind: 'held'; readonly row: RunRow | undefined };

/** A run as a caller identifies it: a run id names one call of one workflow. */
export interface RunIdentity {
  readonly workflow: string;
  /** The arguments, encoded canonically. */
  readonly args: string;
}
