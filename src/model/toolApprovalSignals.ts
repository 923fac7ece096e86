import { InvalidArgumentError } from '../errors/InvalidArgumentError';
import type { RunStatus } from './RunStatus';

/** The run row as a signal's transaction locked it. */
export interface LockedRun {
  readonly status: RunStatus;
  readonly epoch: number;
  readonly waitingFor: string | null;
}

/** Signals named `approve:<toolCallId>` answer a tool call that `waymark/ai` holds for approval. */
export const TOOL_APPROVAL_PREFIX = 'approve:';

/** The step that records a proposed tool call (tool, call id, input) just before its approval wait. */
export const APPROVAL_REQUEST_STEP = 'approval-request';

/**
 * A signal `approve:<toolCallId>` is accepted only while the run waits for exactly that
 * approval, so an approval for a tool call the run never proposed (a typo, another run's
 * id, a call already answered) is refused instead of queued for a wait that never comes.
 */
export function assertToolCallAwaited(runId: string, name: string, run: LockedRun): void {
  if (!name.startsWith(TOOL_APPROVAL_PREFIX)) return;
  if (run.status === 'waiting' && run.waitingFor === `signal:${name}`) return;
  const toolCallId = name.slice(TOOL_APPROVAL_PREFIX.length);
  const now =
    run.status === 'waiting' && run.waitingFor !== null
      ? `it waits for ${run.waitingFor}`
      : `it is ${run.status}`;
  throw new InvalidArgumentError(
    `signal(): name "${name}"`,
    `is refused: run "${runId}" has no tool call "${toolCallId}" waiting for approval (${now})`,
  );
}
