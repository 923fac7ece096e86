import { brand, hasBrand } from './brand';
import { WaymarkError } from './WaymarkError';

/**
 * A stored value cannot be read back: its text is not valid JSON, or it holds a tag this
 * version of waymark does not know. `path` names where, e.g. `result.items[2]`; `cause` is
 * the JSON parse error when there is one.
 */
export class CorruptValueError extends WaymarkError {
  declare readonly code: 'CORRUPT_VALUE';

  readonly path: string;

  constructor(path: string, reason: string, options: { cause?: unknown } = {}) {
    super('CORRUPT_VALUE', `cannot read ${path}: ${reason}`, options);
    this.path = path;
  }
}

brand(CorruptValueError, 'CorruptValueError');

/** True when `error` is a {@link CorruptValueError}. */
export function isCorruptValueError(error: unknown): error is CorruptValueError {
  return hasBrand(error, 'CorruptValueError');
}
