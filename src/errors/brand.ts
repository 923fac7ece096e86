/**
 * Error classes are recognised by a brand on their prototype, not by `instanceof`: two
 * copies of waymark in one application (a library bundling its own) still classify each
 * other's errors, and subclasses (`class RateLimitError extends RetryableError`) inherit it.
 */
function brandKey(className: string): symbol {
  return Symbol.for(`waymark:error:${className}`);
}

/** Marks `Class` (and its subclasses) as the waymark error class `className`. */
export function brand(Class: abstract new (...args: never[]) => Error, className: string): void {
  Object.defineProperty(Class.prototype, brandKey(className), { value: true });
}

/** True when `error` is an instance (of any copy of waymark) of the error class `className`. */
export function hasBrand(error: unknown, className: string): boolean {
  return (
    typeof error === 'object' &&
    error !== null &&
    (error as Record<symbol, unknown>)[brandKey(className)] === true
  );
}
