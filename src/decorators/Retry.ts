import { resolveRetryPolicy, type RetryOptions } from '../policies/RetryPolicy';
import { decoratedMethod } from './decoratedMethod';
import { recordPolicy } from './metadata';
import { validateOptions } from './validation/validateOptions';

/**
 * Retries a `@Step` on transient failures, with backoff between attempts. Attempts are
 * stored, so a crash never resets the budget; long delays release the process.
 *
 * @example
 * ```ts
 * @Step({ timeout: '60s' })
 * @Retry({ maxAttempts: 5, backoff: { initial: '1s', factor: 2, max: '1m', jitter: 'full' },
 *          retryOn: [RateLimitError, TimeoutError], abortOn: [ValidationError] })
 * async draft(req: PurchaseRequest): Promise<Draft> { … }
 * ```
 */
export function Retry(options: RetryOptions = {}) {
  return function <M extends (...args: never[]) => Promise<unknown>>(
    target: object,
    propertyKey: string | symbol,
    descriptor: TypedPropertyDescriptor<M>,
  ): void {
    const method = decoratedMethod('@Retry', target, propertyKey, descriptor);
    const opts = validateOptions('retry', options, method.where);
    const policy = resolveRetryPolicy(opts, method.where);
    recordPolicy(method.declaringClass, method.methodName, method.original, 'retry', policy);
  };
}
