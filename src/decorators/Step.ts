import { ConfigurationError } from '../errors/ConfigurationError';
import type { Duration } from '../ground/Duration';
import { decoratedMethod } from './decoratedMethod';
import type { StorableResult } from '../model/Storable';
import { readMethodPolicies, recordPolicy } from './metadata';
import { routeToInterceptor } from './routeToInterceptor';
import { stepMetadataOf } from './stepMetadata';

/** Options of {@link Step}. */
export interface StepOptions {
  /** Name recorded in the history and checked on replay; default the method name. */
  name?: string;
  /** Longest one attempt may take; the body sees it through `ctx.signal`. */
  timeout?: Duration;
  /** Write an intent marker first and never run the body twice (see "Side effects"). */
  atMostOnce?: boolean;
  /** With `atMostOnce`: raise `UnknownOutcomeError` (default) or park the run for a human. */
  onUnknown?: 'throw' | 'intervene';
  /** Commit the body's writes (`ctx.entityManager`) and the checkpoint in one transaction. */
  transactional?: boolean;
  /**
   * A named limiter (`runtime.limiter(name, …)`) every attempt passes through: its
   * concurrency and rate hold across all workers, and a 429 with Retry-After pauses them all.
   */
  limiter?: string;
}

/**
 * Marks a method as a checkpointed step. Inside a run, each call takes the next sequence
 * number; once its outcome is stored it is never executed again for that run. Outside a
 * run, or inside another step, it is a plain call.
 *
 * @example
 * ```ts
 * @Step({ timeout: '60s' })
 * async search(query: string): Promise<Source[]> {
 *   return this.web.search(query);
 * }
 * ```
 */
export function Step(options?: StepOptions) {
  return function <M extends (...args: never[]) => Promise<unknown>>(
    target: object,
    propertyKey: string | symbol,
    descriptor: TypedPropertyDescriptor<M> & StorableResult<M>,
  ): void {
    const method = decoratedMethod('@Step', target, propertyKey, descriptor);
    const existing = readMethodPolicies(method.declaringClass, method.methodName);
    if (existing?.step) {
      throw new ConfigurationError(`${method.where}: @Step is applied twice`);
    }
    if (existing?.workflow) {
      throw new ConfigurationError(`${method.where}: a method cannot be both @Workflow and @Step`);
    }
    const metadata = stepMetadataOf(options, method.methodName, method.where);
    recordPolicy(method.declaringClass, method.methodName, method.original, 'step', metadata);
    routeToInterceptor(method.declaringClass, method.methodName, descriptor, method.original);
  };
}
