/** Options of {@link WaymarkRuntime.start}. */
export interface StartOptions {
  /** Use this run id instead of the one `@Workflow({ id })` derives or a new UUID. */
  runId?: string;
  /** Record the run as `pending` for a worker (any process) instead of executing it here. */
  queue?: boolean;
}
