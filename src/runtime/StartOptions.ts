import type { DateOrDuration } from './execution/RunTiming';

/** Options of {@link WaymarkRuntime.start}. */
export interface StartOptions {
  /** Use this run id instead of the one `@Workflow({ id })` derives or a new UUID. */
  runId?: string;
  /**
   * Record the run as `pending` for a worker (any process) instead of executing it here.
   * A name: that queue (`runtime.queue`); true: the workflow's queue, or the default one.
   */
  queue?: boolean | string;
  /** Within a named queue: higher goes first (default 0). */
  priority?: number;
  /** At most one queued or running run per key; a start whose key is held returns that run. */
  dedupe?: string;
  /** Start no earlier than this (a `Date`, or a duration from now); a worker starts it then. */
  at?: DateOrDuration;
  /** Cancel the run (and its child runs) if it has not ended by then; stored with the run. */
  deadline?: DateOrDuration;
  /** Cancel the queued run if no worker has started it by then. */
  startBy?: DateOrDuration;
}
