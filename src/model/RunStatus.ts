/**
 * Where a run is in its life. `completed`, `failed` and `cancelled` are terminal;
 * `needs_attention` waits for an operator (`retry`, `resolveStep`, `cancel`).
 */
export type RunStatus =
  'pending' | 'running' | 'waiting' | 'needs_attention' | 'completed' | 'failed' | 'cancelled';

/** Every {@link RunStatus}, for validation and filters. */
export const RUN_STATUSES: readonly RunStatus[] = Object.freeze([
  'pending',
  'running',
  'waiting',
  'needs_attention',
  'completed',
  'failed',
  'cancelled',
]);

/** The statuses a run ends in: it will never run again on its own. */
export type TerminalStatus = Extract<RunStatus, 'completed' | 'failed' | 'cancelled'>;

/** Whether a run in this status will never run again on its own. */
export function isTerminalStatus(status: RunStatus): status is TerminalStatus {
  return status === 'completed' || status === 'failed' || status === 'cancelled';
}
