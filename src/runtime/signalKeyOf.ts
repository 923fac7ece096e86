import { InvalidArgumentError } from '../errors/InvalidArgumentError';
import { assertSignalKey } from '../model/identifiers';
import type { SignalOptions } from './SignalOptions';

const KNOWN: readonly string[] = ['idempotencyKey'];

/**
 * The idempotency key of `signal()`'s options, checked: an object of known options (a
 * misspelt `{ key }` would otherwise send the signal without one, unprotected), the key a
 * well-formed string of 1 to 200 characters.
 *
 * @throws {@link InvalidArgumentError} naming the option and what is wrong with it.
 */
export function signalKeyOf(options: SignalOptions | undefined): string | undefined {
  if (options === undefined) return undefined;
  if (typeof options !== 'object' || options === null || Array.isArray(options)) {
    throw new InvalidArgumentError(
      'signal(): options',
      'must be an object, e.g. { idempotencyKey }',
    );
  }
  const unknown = Object.keys(options).find((name) => !KNOWN.includes(name));
  if (unknown !== undefined) {
    throw new InvalidArgumentError(
      'signal(): options',
      `has no option "${unknown}" (the idempotency key is { idempotencyKey })`,
    );
  }
  const key: unknown = options.idempotencyKey;
  if (key === undefined) return undefined;
  assertSignalKey(key, 'signal(): idempotencyKey');
  return key;
}
