import { injectable } from 'tsyringe';
import type { StepInfo } from '../model/StepInfo';

/**
 * Wraps each attempt of a step body inside a run: the point an application can hook (a span
 * per step, a metric). Resolved from the container when a runtime is created, so an
 * application registers a subclass in its place. The step path around it (replay, retries,
 * the checkpoint) is waymark's and is not overridden: `next()` runs the attempt, in the step's
 * scope; call it once and return what it returns (or throws).
 *
 * @example
 * ```ts
 * @injectable()
 * class TracingInterceptor extends StepInterceptor {
 *   override intercept(step: StepInfo, next: () => Promise<unknown>) {
 *     return tracer.startActiveSpan(`step ${step.step}`, (span) =>
 *       next().finally(() => span.end()),
 *     );
 *   }
 * }
 * container.register(StepInterceptor, { useClass: TracingInterceptor });
 * ```
 */
@injectable()
export class StepInterceptor {
  intercept(_step: StepInfo, next: () => Promise<unknown>): Promise<unknown> {
    return next();
  }
}
