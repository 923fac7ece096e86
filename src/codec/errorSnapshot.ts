import { SerializationError } from '../errors/SerializationError';
import type { Codec } from './Codec';
import { describeThrown } from './describeNode';

const KEPT = ['code', 'status', 'statusCode', 'errno', 'syscall', 'retryAfter'] as const;

/**
 * Encodes an error for the history. Errors from HTTP clients often carry sockets or
 * request objects that cannot be stored; rather than losing the failure, keep what a
 * workflow can branch on (class, name, message, code, status, cause) and drop the rest.
 * Every field is read defensively: an error whose `name` getter throws is still recorded,
 * and if even its snapshot cannot be stored, a plain `Error` saying why is.
 */
export function encodeError(codec: Codec, error: unknown): string {
  try {
    return codec.encode(error, 'error');
  } catch (reason) {
    if (!(reason instanceof SerializationError)) throw reason;
    try {
      return codec.encode(snapshot(error, 0), 'error');
    } catch (again) {
      if (!(again instanceof SerializationError)) throw again;
      return codec.encode(
        new Error(`the error thrown could not be stored: ${reason.message}`),
        'error',
      );
    }
  }
}

function snapshot(error: unknown, depth: number): unknown {
  if (!(error instanceof Error)) {
    return typeof error === 'object' && error !== null
      ? read(
          () => Object.prototype.toString.call(error),
          () => '[object]',
        )
      : error;
  }
  const proto = read(
    () => Object.getPrototypeOf(error) as object | null,
    () => Error.prototype,
  );
  const copy = Object.create(proto) as Error & Record<string, unknown>;
  const fields = {
    name: read(
      () => String(error.name),
      () => 'Error',
    ),
    message: read(
      () => String(error.message),
      (thrown) => `(its message could not be read: ${describeThrown(thrown)})`,
    ),
    stack: read(
      () => error.stack,
      () => undefined,
    ),
  };
  for (const [key, value] of Object.entries(fields)) {
    if (typeof value !== 'string') continue;
    Object.defineProperty(copy, key, { value, writable: true, configurable: true });
  }
  for (const key of KEPT) {
    const value = read(
      () => (error as unknown as Record<string, unknown>)[key],
      () => undefined,
    );
    if (['string', 'number', 'boolean', 'bigint'].includes(typeof value)) {
      copy[key] = value;
    }
  }
  const cause = read(
    () => error.cause,
    () => undefined,
  );
  if (cause !== undefined && depth < 5) {
    Object.defineProperty(copy, 'cause', {
      value: snapshot(cause, depth + 1),
      writable: true,
      configurable: true,
    });
  }
  return copy;
}

function read<T>(get: () => T, fallback: (thrown: unknown) => T): T {
  try {
    return get();
  } catch (thrown) {
    return fallback(thrown);
  }
}
