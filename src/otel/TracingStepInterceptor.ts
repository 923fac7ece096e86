import type { Tracer } from '@opentelemetry/api';
import { loadOptionalPeer } from '../ground/optionalPeer';
import type { StepInfo } from '../model/StepInfo';
import { StepInterceptor } from '../runtime/StepInterceptor';
import { attemptKey, openSpans } from './openSpans';
import type { OpenTelemetryApi } from './OpenTelemetryApi';
import { endSpan } from './spanEnd';
import { stepAttributes } from './stepAttributes';

/** Options of {@link TracingStepInterceptor}. */
export interface TracingStepInterceptorOptions {
  /** Default `trace.getTracer('waymark')` from the global provider, looked up at each attempt. */
  tracer?: Tracer;
}

/**
 * A span per step attempt (`waymark.step <step>`, with run id, step, seq, attempt and kind),
 * made active while the body runs, so the spans the body's own libraries start (an HTTP
 * client, a database driver) are its children. A failed attempt ends with an error status and
 * the exception. With {@link traceRuns} on the same runtime, the attempt's span is the one
 * `traceRuns` opened, a child of the run's span; without it, a child of the context active
 * when the step was called. A step replayed from its checkpoint runs no body and makes no span.
 * Register it before `Waymark.create`; needs a context manager (the Node SDK registers one).
 *
 * @example
 * ```ts
 * import { container } from 'tsyringe';
 * import { StepInterceptor } from 'waymark';
 * import { TracingStepInterceptor } from 'waymark/otel';
 * container.register(StepInterceptor, { useValue: new TracingStepInterceptor() });
 * const runtime = await Waymark.create({ database: 'sqlite:./waymark.db' });
 * ```
 */
// Not `@injectable()`: with no type information tsyringe calls the constructor without
// arguments, so `useClass: TracingStepInterceptor` works as well as `useValue`.
export class TracingStepInterceptor extends StepInterceptor {
  private readonly otel: OpenTelemetryApi;

  constructor(private readonly options: TracingStepInterceptorOptions = {}) {
    super();
    this.otel = loadOptionalPeer<OpenTelemetryApi>('TracingStepInterceptor', '@opentelemetry/api');
  }

  /** Runs the attempt `next` inside its span, and ends the span with how it went. */
  override intercept(step: StepInfo, next: () => Promise<unknown>): Promise<unknown> {
    const { otel } = this;
    const active = otel.context.active();
    const opened = openSpans.get(attemptKey(step.runId, step.seq));
    if (opened) {
      opened.setAttribute('waymark.kind', step.kind);
      return otel.context.with(otel.trace.setSpan(active, opened), next);
    }
    const tracer = this.options.tracer ?? otel.trace.getTracer('waymark');
    const attributes = stepAttributes(step);
    const span = tracer.startSpan(`waymark.step ${step.step}`, { attributes }, active);
    return otel.context.with(otel.trace.setSpan(active, span), next).then(
      (value) => {
        endSpan(otel, span, 'completed');
        return value;
      },
      (error: unknown) => {
        endSpan(otel, span, 'failed', error);
        throw error;
      },
    );
  }
}
