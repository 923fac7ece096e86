import { decoratedMethod } from './decoratedMethod';
import { recordPolicy, type IdempotentMetadata } from './metadata';
import { validateOptions } from './validation/validateOptions';

/** Options of {@link Idempotent}. */
export interface IdempotentOptions<A extends unknown[] = never[]> {
  /** Derives the key from the step's arguments; typed against the method's parameters. */
  key?: (...args: A) => string;
  /**
   * `'run'` (default): the key is unique within the run (prefixed with the run id);
   * `'global'`: unique across all runs — a second run with a completed key gets its result.
   */
  scope?: 'run' | 'global';
}

/**
 * Gives a `@Step` a stable idempotency key (`ctx.idempotencyKey`), the same on every
 * attempt, retry and resume, to pass to APIs that deduplicate. With `scope: 'global'` the
 * key is unique across runs: the body runs once per key, whichever run calls it.
 *
 * @example
 * ```ts
 * @Step()
 * @Idempotent({ key: (d: Draft) => `po-submit-${d.id}`, scope: 'global' })
 * async submit(d: Draft): Promise<Receipt> {
 *   return this.erp.submit(d, { idempotencyKey: this.ctx.idempotencyKey });
 * }
 * ```
 */
export function Idempotent<A extends unknown[] = never[]>(options?: IdempotentOptions<A>) {
  // The key function may read a prefix of the arguments; the method may take more.
  return function <M extends (...args: [...A, ...never[]]) => Promise<unknown>>(
    target: object,
    propertyKey: string | symbol,
    descriptor: TypedPropertyDescriptor<M>,
  ): void {
    const method = decoratedMethod('@Idempotent', target, propertyKey, descriptor);
    const opts = validateOptions('idempotent', options, method.where);
    const metadata: IdempotentMetadata = { key: opts.key, scope: opts.scope ?? 'run' };
    recordPolicy(method.declaringClass, method.methodName, method.original, 'idempotent', metadata);
  };
}
