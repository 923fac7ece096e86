/**
 * A function of a call's arguments (`@Workflow({ id })`, `@Idempotent({ key })`, a queue's
 * `partitionBy`), typed by its author against the method it belongs to. Its parameters are
 * `never[]` so that any such function fits, and so that nothing calls it except through
 * {@link applyArgs}, with arguments recorded for that method.
 */
export type ArgsFunction<R> = (...args: never[]) => R;

/**
 * Calls `fn` with `args`, the arguments of a call of the method `fn` was typed against.
 *
 * @example
 * ```ts
 * const runId = applyArgs(plan.id, call.args);
 * ```
 */
export function applyArgs<R>(fn: ArgsFunction<R>, args: readonly unknown[]): R {
  return (fn as (...args: readonly unknown[]) => R)(...args);
}
