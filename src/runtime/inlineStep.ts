import type { AiCall } from '../model/AiCall';
import type { ResolvedRetryPolicy } from '../policies/RetryPolicy';
import { compileStepPlan } from '../decorators/StepPlan';
import { RunScope } from './execution/RunScope';

/**
 * A step made from a function (not a decorated method) by an integration such as
 * `waymark/ai`, whose policies are already resolved; users write `ctx.step(name, fn, options)`.
 */
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

/**
 * The execution (one claim of a run) the calling workflow code belongs to, as an opaque key,
 * or undefined outside a run: for integrations that keep state per execution, such as the
 * order in which `waymark/ai` holds tool calls for approval.
 */
export function currentExecution(): object | undefined {
  return RunScope.current()?.run;
}

/**
 * The idempotency key of the step whose body is running, or undefined outside one: for
 * integrations that pass it on when there may be no step, such as `waymark/ai`'s MCP calls.
 */
export function currentStepIdempotencyKey(): string | undefined {
  return RunScope.current()?.step?.idempotencyKey;
}

/** True in workflow code of a run (not inside a step's body), where a call can be a step. */
export function inWorkflowCode(): boolean {
  const scope = RunScope.current();
  return scope !== undefined && scope.step === undefined;
}

/**
 * Runs `body` as a step of the current run, on the same plan machinery as `@Step` and
 * `ctx.step`: replayed from the store when its outcome is recorded, else executed with the
 * spec's retries and recorded with one write. Outside workflow code (no run, or inside
 * another step) `body` is simply called.
 */
export function runInlineStep<T>(spec: InlineStepSpec, body: () => Promise<T>): Promise<T> {
  const scope = RunScope.current();
  if (!scope || scope.step) return body();
  const plan = compileStepPlan(
    spec.name,
    'inline',
    {
      name: spec.name,
      timeoutMs: spec.timeoutMs,
      atMostOnce: spec.atMostOnce ?? false,
      onUnknown: 'throw',
      transactional: false,
      ...(spec.limiter === undefined ? {} : { limiter: spec.limiter }),
    },
    spec.retry,
    spec.key === undefined ? undefined : { key: () => spec.key!, scope: 'run' },
  );
  return scope.operations.step(scope, { plan, args: [], body }) as Promise<T>;
}

/**
 * Tells the runtime's listeners (the `ai.call` event, which `waymark/otel` turns into GenAI
 * spans) of a call the current step's body made; does nothing outside a step body. Called
 * from the body, so a step answered from the history reports nothing.
 */
export function reportAiCall(call: AiCall): void {
  const scope = RunScope.current();
  if (scope?.step) scope.operations.reportAiCall(scope, scope.step, call);
}

/**
 * Inside the body of a step of a replay run (`runtime.replay()`): the replayed run's recorded
 * result of the same step (same seq, same name) when `matches` accepts it, else undefined —
 * for `waymark/ai`, which answers a model call made from an unchanged input without calling.
 */
export function answerFromReplaySource(matches: (recorded: unknown) => boolean): Promise<unknown> {
  const scope = RunScope.current();
  if (!scope?.step) return Promise.resolve(undefined);
  return scope.operations.answerFromSource(scope, matches);
}
