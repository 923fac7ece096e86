import { brand, hasBrand } from './brand';

/** Options shared by every waymark error. */
export interface WaymarkErrorOptions {
  /** The error that led to this one. */
  cause?: unknown;
}

/**
 * Base class of every error waymark throws. `code` is a stable string to branch on;
 * `name` is the concrete class name, also after a round trip through the store.
 *
 * @example
 * ```ts
 * try { await agent.run(input); }
 * catch (e) { if (isWaymarkError(e, 'NON_DETERMINISM')) alertOncall(e); }
 * ```
 */
export class WaymarkError extends Error {
  readonly code: string;

  constructor(code: string, message: string, options: WaymarkErrorOptions = {}) {
    super(message, options.cause === undefined ? undefined : { cause: options.cause });
    this.code = code;
    this.name = new.target.name;
    Object.setPrototypeOf(this, new.target.prototype);
  }
}

brand(WaymarkError, 'WaymarkError');

/** True when `error` is a waymark error, optionally with the given `code`. */
export function isWaymarkError(error: unknown, code?: string): error is WaymarkError {
  return (
    hasBrand(error, 'WaymarkError') && (code === undefined || (error as WaymarkError).code === code)
  );
}
