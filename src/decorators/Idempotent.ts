import { decoratedMethod } from './decoratedMethod';
import { recordPolicy, type IdempotentMetadata } from './metadata';
import { validateOptions } from './validation/validateOptions';

/** Options of {@link Idempotent}. */
// eslint-disable-next-line @typescript-eslint/no-explicit-any -- a user's unannotated parameters stay `any`, as before; `never` would refuse `(order) => order.id`
export interface IdempotentOptions<A extends unknown[] = any[]> {
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
// eslint-disable-next-line @typescript-eslint/no-explicit-any -- a user's unannotated parameters stay `any`, as before; `never` would refuse `(order) => order.id`
export function Idempotent<A extends any[]>(options?: IdempotentOptions<A>) {
  // The key function may read a prefix of the arguments; the method may take more.
  // eslint-disable-next-line @typescript-eslint/no-explicit-any -- a user's unannotated parameters stay `any`, as before; `never` would refuse `(order) => order.id`
  return function <M extends (...args: [...A, ...any[]]) => Promise<unknown>>(
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
