import type { RunSummary } from '../model/RunRecords';

/** The statuses of an MCP task (the 2025-11-25 specification's `Task.status`). */
export type McpTaskStatus = 'working' | 'input_required' | 'completed' | 'failed' | 'cancelled';

/**
 * The task status of a run. A run that needs someone — waiting for a signal (an approval is
 * one) or parked in `needs_attention` for an operator — is `input_required`; a run that will
 * go on by itself (`pending`, `running`, waiting for a timer or a retry's backoff) is
 * `working`; the three ends map to themselves.
 *
 * @example
 * ```ts
 * taskStatusOf({ status: 'waiting', waitingFor: 'signal:approval' }); // 'input_required'
 * ```
 */
export function taskStatusOf(run: Pick<RunSummary, 'status' | 'waitingFor'>): McpTaskStatus {
  switch (run.status) {
    case 'pending':
    case 'running':
      return 'working';
    case 'waiting':
      return run.waitingFor?.startsWith('signal:') === true ? 'input_required' : 'working';
    case 'needs_attention':
      return 'input_required';
    case 'completed':
    case 'failed':
    case 'cancelled':
      return run.status;
  }
}
