import type { RunTiming } from './RunTiming';

/** Options of one start. */
export interface StartCallOptions {
  runId?: string;
  parentRunId?: string;
  /** Record the run as `pending` for a worker instead of executing it here; a name: in that queue. */
  queue?: boolean | string;
  /** Within a named queue: higher goes first (default 0). */
  priority?: number;
  /** At most one queued or running run per key: a start with a held key returns that run. */
  dedupe?: string;
  /** When it is due, must end, must have started by (`at` implies a worker starts it). */
  timing?: RunTiming;
}
