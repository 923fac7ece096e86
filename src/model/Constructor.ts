/**
 * A class its container builds, with whatever it injects: the shape tsyringe's
 * `container.resolve()` (and Nest's `moduleRef.get()`) take. Its parameters stay `any[]` on
 * purpose: with `never[]` or `unknown[]` neither container accepts it, and waymark never
 * calls the constructor itself.
 *
 * @example
 * ```ts
 * const resolveInstance = (Class: Constructor) => container.resolve(Class);
 * ```
 */
// eslint-disable-next-line @typescript-eslint/no-explicit-any -- tsyringe's own `constructor<T>`, which it does not export
export type Constructor<T extends object = object> = new (...args: any[]) => T;
