import { brand, hasBrand } from './brand';
import type { WaymarkErrorCode } from './WaymarkErrorCode';

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
  /** Which error this is; each subclass narrows it to its own code. */
  readonly code: WaymarkErrorCode;

  constructor(code: WaymarkErrorCode, message: string, options: WaymarkErrorOptions = {}) {
    super(message, options.cause === undefined ? undefined : { cause: options.cause });
    this.code = code;
    this.name = new.target.name;
    Object.setPrototypeOf(this, new.target.prototype);
  }
}

brand(WaymarkError, 'WaymarkError');

/** True when `error` is a waymark error, optionally with the given `code`. */
export function isWaymarkError(error: unknown, code?: WaymarkErrorCode): error is WaymarkError {
  return (
    hasBrand(error, 'WaymarkError') && (code === undefined || (error as WaymarkError).code === code)
  );
}
