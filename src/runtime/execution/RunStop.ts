import { RunSuspended } from '../../errors/RunSuspended';

/**
 * Why a run stops executing here before its workflow returns, decided where it happens and
 * carried to `RunExecution`, which acts on it alone:
 * - `attention`: park it in `needs_attention` (written when the run ends here);
 * - `parked`: parked for an operator, written already;
 * - `suspended`: released to `waiting` until `wakeAt` (or a signal), written already;
 * - `abort`: write nothing more (handed over, taken over, or closing); it stays resumable.
 * `error` is what the workflow code is given as it unwinds.
 */
export type RunStop =
  | { readonly kind: 'attention'; readonly error: unknown }
  | { readonly kind: 'parked'; readonly error: unknown }
  | { readonly kind: 'suspended'; readonly error: RunSuspended; readonly wakeAt: number | null }
  | { readonly kind: 'abort'; readonly error: unknown };

/** The stops, by what they mean. */
export const Stop = {
  /** The run needs a human (non-determinism, a corrupt record, a parked child). */
  attention: (error: unknown): RunStop => ({ kind: 'attention', error }),
  /** The run was parked at a step for an operator (stored already). */
  parked: (error: unknown): RunStop => ({ kind: 'parked', error }),
  /** The run was released to `waiting` until `wakeAt` (stored already). */
  suspended: (runId: string, wakeAt: number | null): RunStop => ({
    kind: 'suspended',
    error: new RunSuspended(runId, wakeAt),
    wakeAt,
  }),
  /** Nothing more may be written by this claim. */
  abort: (error: unknown): RunStop => ({ kind: 'abort', error }),
};
