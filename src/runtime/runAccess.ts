import type { RunAccess } from './RunHandle';
import type { RuntimeParts } from './RuntimeParts';

/** What a run handle reads and awaits through, from a runtime's parts. */
export function runAccess(parts: RuntimeParts): RunAccess {
  return {
    loadRun: (runId) => parts.store.loadRun(runId),
    history: (runId, page) => parts.queries.history(runId, page),
    pendingSignals: (runId, name) => parts.stores.signals.pending(runId, name),
    awaitRun: (runId) => parts.runs.awaitRun(runId),
  };
}
