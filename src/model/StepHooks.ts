/** Where a step is when a hook is called. */
export interface StepHookPoint {
  readonly runId: string;
  readonly seq: number;
  /** The step name recorded in the history. */
  readonly step: string;
  /** `Class.method`, the address crash hooks and matchers use. */
  readonly target: string;
}

/**
 * Observation points on the step path, used by the testing kit to simulate crashes and
 * count executions. A hook that throws stops the step at that point.
 */
export interface StepHooks {
  /** Before the body runs (nothing of this step is stored yet). */
  beforeStep?(point: StepHookPoint): void;
  /** Each time a body is about to execute. */
  onExecute?(point: StepHookPoint): void;
  /** The body ran; its checkpoint is not written yet. */
  afterEffect?(point: StepHookPoint): void;
  /** The checkpoint is committed. */
  afterCommit?(point: StepHookPoint): void;
}
