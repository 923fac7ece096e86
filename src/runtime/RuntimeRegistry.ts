import type { Clock } from '../ground/Clock';
import type { WorkflowCall } from './execution/WorkflowCall';

/** What serves workflow calls made outside any run. */
export interface WorkflowEntry {
  readonly isOpen: boolean;
  readonly clock: Clock;
  /** Starts, resumes or reads back the run of `call`, and returns its result. */
  callWorkflow(call: WorkflowCall): Promise<unknown>;
}

const open: WorkflowEntry[] = [];

/**
 * Which runtime serves a workflow called outside any run: the most recently created one
 * that is still open. Tests that restart a runtime get the new one automatically.
 */
export const RuntimeRegistry = {
  activate(entry: WorkflowEntry): void {
    open.push(entry);
  },
  deactivate(entry: WorkflowEntry): void {
    const index = open.indexOf(entry);
    if (index >= 0) open.splice(index, 1);
  },
  current(): WorkflowEntry | undefined {
    for (let i = open.length - 1; i >= 0; i--) {
      if (open[i].isOpen) return open[i];
    }
    return undefined;
  },
};
