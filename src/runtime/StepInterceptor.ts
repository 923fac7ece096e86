import { injectable } from 'tsyringe';
import type { BodyInvoker } from './execution/StepPath';
import type { MethodCall } from './execution/MethodCall';
import type { RunScope } from './execution/RunScope';

/**
 * Executes each attempt of a step body inside a run: the point an application can wrap
 * (for tracing, say). Resolved from the container when a runtime is created, so an
 * application can register a subclass in its place. The step path around it (replay,
 * retries, checkpoint) is waymark's and is not overridden.
 *
 * @example
 * ```ts
 * @injectable()
 * class TracingInterceptor extends StepInterceptor {
 *   protected override invokeBody(scope: RunScope, call: MethodCall) {
 *     return tracer.startActiveSpan(call.policies.methodName, () => super.invokeBody(scope, call));
 *   }
 * }
 * container.register(StepInterceptor, { useClass: TracingInterceptor });
 * ```
 */
@injectable()
export class StepInterceptor implements BodyInvoker {
  /** @internal Called by the step path for each attempt. */
  runBody(scope: RunScope, call: MethodCall): Promise<unknown> {
    return this.invokeBody(scope, call);
  }

  /** Executes a step body in its own scope. Override to wrap every execution. */
  protected invokeBody(scope: RunScope, call: MethodCall): Promise<unknown> {
    return scope.enter(() => call.policies.original.apply(call.instance, call.args));
  }
}
