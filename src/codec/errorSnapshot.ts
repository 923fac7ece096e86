import { SerializationError } from '../errors/SerializationError';
import type { Codec } from './Codec';

const KEPT = ['code', 'status', 'statusCode', 'errno', 'syscall', 'retryAfter'] as const;

/**
 * Encodes an error for the history. Errors from HTTP clients often carry sockets or
 * request objects that cannot be stored; rather than losing the failure, keep what a
 * workflow can branch on (class, name, message, code, status, cause) and drop the rest.
 */
export function encodeError(codec: Codec, error: unknown): string {
  try {
    return codec.encode(error, 'error');
  } catch (reason) {
    if (!(reason instanceof SerializationError)) throw reason;
    return codec.encode(snapshot(error, 0), 'error');
  }
}

function snapshot(error: unknown, depth: number): unknown {
  if (!(error instanceof Error)) {
    return typeof error === 'object' && error !== null
      ? Object.prototype.toString.call(error)
      : error;
  }
  const copy = Object.create(Object.getPrototypeOf(error) as object) as Error &
    Record<string, unknown>;
  for (const key of ['name', 'message', 'stack'] as const) {
    Object.defineProperty(copy, key, { value: error[key], writable: true, configurable: true });
  }
  const source = error as unknown as Record<string, unknown>;
  for (const key of KEPT) {
    const value = source[key];
    if (value === undefined || (typeof value === 'object' && value !== null)) continue;
    copy[key] = value;
  }
  if (error.cause !== undefined && depth < 5) {
    Object.defineProperty(copy, 'cause', {
      value: snapshot(error.cause, depth + 1),
      writable: true,
      configurable: true,
    });
  }
  return copy;
}
