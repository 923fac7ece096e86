import type { Task } from '@modelcontextprotocol/sdk/types.js';
import type { RunSummary } from '../model/RunRecords';
import { taskStatusOf } from './taskStatusOf';

/** How often a client should ask again about a task that has not ended (ms). */
export const TASK_POLL_INTERVAL_MS = 1000;

/**
 * The MCP task of a run: its id is the run id, and it is kept as long as the run is (`ttl`
 * null: `waymark prune` removes runs, not a timer). `statusMessage` says what the run is at.
 */
export function taskOfRun(run: RunSummary): Task {
  const status = taskStatusOf(run);
  return {
    taskId: run.runId,
    status,
    ttl: null,
    createdAt: run.createdAt.toISOString(),
    lastUpdatedAt: run.updatedAt.toISOString(),
    pollInterval: TASK_POLL_INTERVAL_MS,
    statusMessage: statusMessageOf(run),
  };
}

function statusMessageOf(run: RunSummary): string {
  const what = `${run.workflow} is ${run.status}`;
  if (run.status === 'waiting' && run.waitingFor !== null) {
    return `${what}, waiting for ${run.waitingFor}`;
  }
  if (run.status === 'needs_attention') {
    const why = run.parkedReason === null ? '' : ` (${run.parkedReason})`;
    return `${what}${why}: an operator may retry or cancel it`;
  }
  return what;
}
