/** How a run ended (or parked, or paused until a time), as its caller sees it. */
export type RunOutcome =
  | { readonly status: 'completed'; readonly result: unknown }
  | { readonly status: 'failed' | 'needs_attention' | 'cancelled'; readonly error: unknown }
  | { readonly status: 'waiting'; readonly wakeAt: number | null };

/** The result of a completed outcome, or its error thrown. */
export function unwrapOutcome(outcome: RunOutcome): unknown {
  if (outcome.status === 'completed') return outcome.result;
  if (outcome.status === 'waiting') {
    throw new Error('internal: a waiting run has no result yet');
  }
  throw outcome.error;
}
