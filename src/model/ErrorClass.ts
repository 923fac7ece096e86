/**
 * An error class as waymark takes it (`registerErrorClasses`, `retryOn`/`abortOn`): matched
 * with `instanceof` or by name, never constructed with user arguments.
 */
export type ErrorClass = abstract new (...args: never[]) => Error;
