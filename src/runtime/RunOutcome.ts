/** How a run ended (or parked), as its caller sees it. */
export type RunOutcome =
  | { readonly status: 'completed'; readonly result: unknown }
  | { readonly status: 'failed' | 'needs_attention' | 'cancelled'; readonly error: unknown };

/** The result of a completed outcome, or its error thrown. */
export function unwrapOutcome(outcome: RunOutcome): unknown {
  if (outcome.status === 'completed') return outcome.result;
  throw outcome.error;
}
