import type { MethodPlan, StepKey } from '../decorators/MethodPlan';
import type { MethodPolicies, StepMetadata } from '../decorators/metadata';
import type { ResolvedRetryPolicy } from '../policies/RetryPolicy';
import { RunScope } from './execution/RunScope';

/** What a step made from a function (not a decorated method) records and how it runs. */
export interface InlineStepSpec {
  /** The step's name in the history, checked on replay like a `@Step`'s. */
  readonly name: string;
  /** Run-scoped idempotency key (`${runId}:${key}`); default `${runId}:${seq}`. */
  readonly key?: string;
  readonly retry?: ResolvedRetryPolicy;
  readonly atMostOnce?: boolean;
  readonly timeoutMs?: number;
  /** The named limiter (`runtime.limiter`) every attempt passes through, if any. */
  readonly limiter?: string;
}

class InlineStep {}
const receiver = new InlineStep();

/** True in workflow code of a run (not inside a step's body), where a call can be a step. */
/**
 * The execution (one claim of a run) the calling workflow code belongs to, as an opaque key,
 * or undefined outside a run: for integrations that keep state per execution, such as the
 * order in which `waymark/ai` holds tool calls for approval.
 */
export function currentExecution(): object | undefined {
  return RunScope.current()?.run;
}

export function inWorkflowCode(): boolean {
  const scope = RunScope.current();
  return scope !== undefined && scope.step === undefined;
}

/**
 * Runs `body` as a step of the current run: replayed from the store when its outcome is
 * recorded, else executed with the spec's retries and recorded with one write. Outside
 * workflow code (no run, or inside another step) `body` is simply called. For integrations
 * such as `waymark/ai`, whose calls are functions rather than decorated methods.
 */
export function runInlineStep<T>(spec: InlineStepSpec, body: () => Promise<T>): Promise<T> {
  const scope = RunScope.current();
  if (!scope || scope.step) return body();
  const plan = inlinePlan(spec, body);
  return scope.operations.step(scope, {
    instance: receiver,
    declaringClass: InlineStep,
    policies: plan.policies,
    args: [],
    plan,
  }) as Promise<T>;
}

function inlinePlan(spec: InlineStepSpec, body: () => Promise<unknown>): MethodPlan {
  const step: StepMetadata = {
    name: spec.name,
    timeoutMs: spec.timeoutMs,
    atMostOnce: spec.atMostOnce ?? false,
    onUnknown: 'throw',
    transactional: false,
    ...(spec.limiter === undefined ? {} : { limiter: spec.limiter }),
  };
  const policies: MethodPolicies = {
    className: 'InlineStep',
    methodName: spec.name,
    original: body,
    step,
    retry: spec.retry,
  };
  return {
    declaringClass: InlineStep,
    policies,
    target: `InlineStep.${spec.name}`,
    workflow: undefined,
    step,
    retry: spec.retry,
    writer: step.atMostOnce ? 'atMostOnce' : 'plain',
    keyOf(runId: string, seq: number): StepKey {
      return {
        key: spec.key === undefined ? `${runId}:${seq}` : `${runId}:${spec.key}`,
        global: false,
        custom: spec.key !== undefined,
      };
    },
  };
}
