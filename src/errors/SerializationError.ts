import { brand, hasBrand } from './brand';
import { WaymarkError } from './WaymarkError';

/**
 * A value cannot be stored so that it reads back equal: a function, a symbol, a class
 * instance with methods, a circular reference, or a value over the size limit.
 * `path` names where it is, e.g. `result.items[3].client`.
 */
export class SerializationError extends WaymarkError {
  declare readonly code: 'SERIALIZATION';

  readonly path: string;

  constructor(path: string, reason: string) {
    super('SERIALIZATION', `cannot store ${path}: ${reason}`);
    this.path = path;
  }
}

brand(SerializationError, 'SerializationError');

/** True when `error` is a {@link SerializationError}. */
export function isSerializationError(error: unknown): error is SerializationError {
  return hasBrand(error, 'SerializationError');
}
