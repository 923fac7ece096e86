import type { Span } from '@opentelemetry/api';

/**
 * The run and step-attempt spans `traceRuns` has open in this process, so that a
 * `TracingStepInterceptor` makes the attempt's span active instead of starting a second one.
 * Keyed by run id (and seq): a run executes in at most one place in a process at a time.
 */
class OpenSpans {
  private readonly spans = new Map<string, Span>();

  open(key: string, span: Span): void {
    this.spans.set(key, span);
  }

  get(key: string): Span | undefined {
    return this.spans.get(key);
  }

  /** Forgets `span` under `key`, unless another tracer's span took its place. */
  close(key: string, span: Span): void {
    if (this.spans.get(key) === span) this.spans.delete(key);
  }
}

/** The process's open waymark spans. */
export const openSpans = new OpenSpans();

/** The key of one step's attempt span in {@link openSpans}. */
export function attemptKey(runId: string, seq: number): string {
  return `${runId}#${seq}`;
}
