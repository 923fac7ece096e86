import { markStoredOutcome } from '../../errors/storedOutcomeNote';

/**
 * How a run ended (or parked, or paused until a time), as its caller sees it. An error
 * outcome's `storedAt` is when the store recorded it, for an outcome the caller found ended
 * when it first looked (see {@link unwrapOutcome}); null for one it saw happen: produced by an
 * execution here, or seen to end in the store while the caller waited.
 */
export type RunOutcome =
  | { readonly status: 'completed'; readonly result: unknown }
  | {
      readonly status: 'failed' | 'needs_attention' | 'cancelled';
      readonly error: unknown;
      readonly storedAt: number | null;
    }
  | { readonly status: 'waiting'; readonly wakeAt: number | null };

/** `outcome` as one the caller saw happen: its error is not a stored outcome handed back. */
export function seenToEnd(outcome: RunOutcome): RunOutcome {
  if (outcome.status === 'completed' || outcome.status === 'waiting') return outcome;
  if (outcome.storedAt === null) return outcome;
  return { status: outcome.status, error: outcome.error, storedAt: null };
}

/**
 * The result of run `runId`'s completed outcome, or its error thrown. An error the caller
 * found stored (`storedAt`) is thrown marked as such (see `markStoredOutcome`), so a call
 * that re-throws a run's recorded failure says so; one it saw happen is thrown as it is.
 */
export function unwrapOutcome(outcome: RunOutcome, runId: string): unknown {
  if (outcome.status === 'completed') return outcome.result;
  if (outcome.status === 'waiting') {
    throw new Error('internal: a waiting run has no result yet');
  }
  if (outcome.storedAt === null) throw outcome.error;
  const storedAt = new Date(outcome.storedAt);
  throw markStoredOutcome(outcome.error, { runId, status: outcome.status, storedAt });
}
