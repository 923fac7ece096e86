import { SerializationError } from '../errors/SerializationError';
import type { Codec } from './Codec';
import { describeThrown } from './describeNode';

const KEPT = ['code', 'status', 'statusCode', 'errno', 'syscall', 'retryAfter'] as const;

/** The longest text kept of each field of an error too large to store, tried in turn. */
const CUT_AT = [65_536, 4_096, 256] as const;

/** An error as stored, and whether that is the error as thrown or a copy made to fit. */
export interface EncodedError {
  readonly text: string;
  /** False when the stored text holds a snapshot, a cut copy or a stand-in, not the error. */
  readonly exact: boolean;
}

/**
 * Encodes an error for the history. Errors from HTTP clients often carry sockets or
 * request objects that cannot be stored; rather than losing the failure, keep what a
 * workflow can branch on (class, name, message, code, status, cause) and drop the rest.
 * An error over the size limit keeps those too, with its long texts (a 2 MB message) cut
 * and marked. Every field is read defensively: an error whose `name` getter throws is still
 * recorded, and if even its snapshot cannot be stored, a plain `Error` saying why is.
 */
export function encodeError(codec: Codec, error: unknown): string {
  return encodeErrorAsStored(codec, error).text;
}

/**
 * {@link encodeError}, saying whether the stored text is the error as thrown: when it is not,
 * the workflow must be given what is stored (decoded), as a replay will be.
 */
export function encodeErrorAsStored(codec: Codec, error: unknown): EncodedError {
  let reason: SerializationError;
  try {
    return { text: codec.encode(error, 'error'), exact: true };
  } catch (thrown) {
    if (!(thrown instanceof SerializationError)) throw thrown;
    reason = thrown;
  }
  for (const maxChars of [undefined, ...CUT_AT]) {
    try {
      return { text: codec.encode(snapshot(error, 0, maxChars), 'error'), exact: false };
    } catch (again) {
      if (!(again instanceof SerializationError)) throw again;
    }
  }
  const standIn = new Error(`the error thrown could not be stored: ${cut(reason.message, 256)}`);
  return { text: codec.encode(standIn, 'error'), exact: false };
}

/** `text`, or its first `maxChars` characters and a marker saying how long it was. */
function cut(text: string, maxChars: number | undefined): string {
  if (maxChars === undefined || text.length <= maxChars) return text;
  return (
    `${text.slice(0, maxChars)}… [cut by waymark: ${text.length} characters, ` +
    'too large to store whole]'
  );
}

function snapshot(error: unknown, depth: number, maxChars?: number): unknown {
  if (!(error instanceof Error)) {
    if (typeof error === 'string') return cut(error, maxChars);
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
    const kept = cut(value, maxChars);
    Object.defineProperty(copy, key, { value: kept, writable: true, configurable: true });
  }
  for (const key of KEPT) {
    const value = read(
      () => (error as unknown as Record<string, unknown>)[key],
      () => undefined,
    );
    if (typeof value === 'string') copy[key] = cut(value, maxChars);
    else if (['number', 'boolean', 'bigint'].includes(typeof value)) copy[key] = value;
  }
  const cause = read(
    () => error.cause,
    () => undefined,
  );
  if (cause !== undefined && depth < 5) {
    Object.defineProperty(copy, 'cause', {
      value: snapshot(cause, depth + 1, maxChars),
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
