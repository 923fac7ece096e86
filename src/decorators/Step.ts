import { ConfigurationError } from '../errors/ConfigurationError';
import { parseDuration, type Duration } from '../ground/Duration';
import { decoratedMethod } from './decoratedMethod';
import type { StorableResult } from '../model/Storable';
import { readMethodPolicies, recordPolicy, type StepMetadata } from './metadata';
import { routeToInterceptor } from './routeToInterceptor';
import { validateOptions } from './validation/validateOptions';

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
  return function <M extends (...args: any[]) => Promise<unknown>>(
    target: object,
    propertyKey: string | symbol,
    descriptor: TypedPropertyDescriptor<M> & StorableResult<M>,
  ): void {
    const method = decoratedMethod('@Step', target, propertyKey, descriptor);
    const opts = validateOptions('step', options, method.where);
    const existing = readMethodPolicies(method.declaringClass, method.methodName);
    if (existing?.step) {
      throw new ConfigurationError(`${method.where}: @Step is applied twice`);
    }
    if (existing?.workflow) {
      throw new ConfigurationError(`${method.where}: a method cannot be both @Workflow and @Step`);
    }
    if (opts.onUnknown !== undefined && !opts.atMostOnce) {
      throw new ConfigurationError(`${method.where}: onUnknown only applies with atMostOnce: true`);
    }
    const metadata: StepMetadata = {
      name: opts.name ?? method.methodName,
      timeoutMs:
        opts.timeout === undefined
          ? undefined
          : parseDuration(opts.timeout, `${method.where}: timeout`),
      atMostOnce: opts.atMostOnce ?? false,
      onUnknown: opts.onUnknown ?? 'throw',
      transactional: opts.transactional ?? false,
      ...(opts.limiter === undefined ? {} : { limiter: opts.limiter }),
    };
    recordPolicy(method.declaringClass, method.methodName, method.original, 'step', metadata);
    routeToInterceptor(method.declaringClass, method.methodName, descriptor, 'step');
  };
}
