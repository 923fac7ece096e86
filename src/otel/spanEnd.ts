import type { Span } from '@opentelemetry/api';
import type { OpenTelemetryApi } from './OpenTelemetryApi';

/**
 * Ends a run or step span with how it went: `waymark.outcome`, an error status and the
 * exception when `error` is given, an OK status when it completed; at `endTime` (epoch ms) if
 * given, else now.
 */
export function endSpan(
  otel: OpenTelemetryApi,
  span: Span,
  outcome: string,
  error?: unknown,
  endTime?: number,
): void {
  span.setAttribute('waymark.outcome', outcome);
  if (error !== undefined) {
    span.setStatus({ code: otel.SpanStatusCode.ERROR, message: (error as Error)?.message });
    if (error instanceof Error) span.recordException(error);
  } else if (outcome === 'completed') {
    span.setStatus({ code: otel.SpanStatusCode.OK });
  }
  span.end(endTime);
}
