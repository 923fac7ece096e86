/**
 * The step attempt a {@link StepInterceptor} wraps, as public data: which run, which step (its
 * recorded name and sequence number), which attempt (1 for the first), and whether it is a
 * `@Step` method or an inline step (`ctx.step`).
 */
export interface StepInfo {
  readonly runId: string;
  readonly step: string;
  readonly seq: number;
  readonly attempt: number;
  readonly kind: 'method' | 'inline';
}
