/**
 * What {@link storedOutcomeOf} says about an error a call was handed from the store: the run
 * had ended (or parked) before the call looked, so nothing ran again.
 */
export interface StoredOutcomeNote {
  /** The run whose stored outcome this is. */
  readonly runId: string;
  /** How the run ended: `failed`, `cancelled`, or parked in `needs_attention`. */
  readonly status: 'failed' | 'cancelled' | 'needs_attention';
  /** When the outcome was stored (the run ended or parked), by the clock of the runtime that stored it. */
  readonly storedAt: Date;
  /** The error as it was stored, without the line that marks it. */
  readonly error: unknown;
}

// Symbol.for: two copies of waymark in one application read each other's notes.
const NOTE = Symbol.for('waymark:storedOutcome');

/**
 * The note on an error that a workflow call, `runtime.run()` or `handle.result()` re-threw
 * from the store — the run had ended before that call looked — or `undefined` for an error
 * delivered as it was thrown (the execution that produced it was this call's own, or one it
 * waited on).
 *
 * @example
 * ```ts
 * try { await orders.place(order); }
 * catch (e) {
 *   const stored = storedOutcomeOf(e);
 *   if (stored) console.log(`run ${stored.runId} had ${stored.status} at ${stored.storedAt.toISOString()}`);
 *   throw e;
 * }
 * ```
 */
export function storedOutcomeOf(error: unknown): StoredOutcomeNote | undefined {
  if (typeof error !== 'object' || error === null) return undefined;
  return (error as { [NOTE]?: StoredOutcomeNote })[NOTE];
}

/**
 * A copy of `error` (same prototype, so the same class, `name`, `code` and waymark brands) whose
 * message ends with one line saying that it is run `note.runId`'s stored outcome, when it was
 * stored, and how to run the run again; `note` is kept on it for {@link storedOutcomeOf}. The
 * copy leaves `error` untouched: other callers (a parent run recording a child's outcome) may
 * hold it. A thrown value that is not an `Error` is returned as it is.
 */
export function markStoredOutcome(error: unknown, note: Omit<StoredOutcomeNote, 'error'>): unknown {
  if (!(error instanceof Error) || storedOutcomeOf(error)) return error;
  const copy = copyOf(error);
  const original = readText(error, 'message') ?? '';
  const message = original === '' ? storedLine(note) : `${original}\n${storedLine(note)}`;
  setHidden(copy, 'message', message);
  // The stack starts with the message as thrown: it says the same, so a printed error does.
  const name = readText(error, 'name') ?? 'Error';
  const stack = readText(error, 'stack');
  const header = original === '' ? name : `${name}: ${original}`;
  if (stack?.startsWith(header)) {
    setHidden(copy, 'stack', `${name}: ${message}${stack.slice(header.length)}`);
  }
  setHidden(copy, NOTE, Object.freeze({ ...note, error }));
  return copy;
}

/** The line that marks a stored outcome: which run, when, that it is stored, how to run again. */
function storedLine(note: Omit<StoredOutcomeNote, 'error'>): string {
  const id = note.runId;
  const at = note.storedAt.toISOString();
  const cli = `waymark retry ${shellWord(id)}`;
  const api = `runtime.retry(${JSON.stringify(id)})`;
  const stored = 'this is its stored outcome, returned without running anything again';
  if (note.status === 'cancelled') {
    return (
      `↳ run "${id}" was cancelled at ${at}; ${stored}. A cancelled run is not retried: call ` +
      `it with a new run id, or fork it (\`waymark fork ${shellWord(id)} --from <seq>\`)`
    );
  }
  const how =
    note.status === 'failed' ? `failed at ${at}` : `is parked in needs_attention since ${at}`;
  return `↳ run "${id}" ${how}; ${stored}. To run it again: \`${cli}\`, ${api}, or a new run id`;
}

/** `id` as one word of a POSIX shell command line. */
function shellWord(id: string): string {
  return /^[\w.:/@%+=,-]+$/.test(id) ? id : `'${id.replace(/'/g, `'\\''`)}'`;
}

/**
 * A native error (so `util.types.isNativeError` and Node's printing treat it as one) with
 * `error`'s prototype and own properties; no constructor of the error's class runs.
 */
function copyOf(error: Error): Error {
  const prototype = Object.getPrototypeOf(error) as object | null;
  const Like = function () {} as unknown as new () => Error;
  Like.prototype = prototype ?? Error.prototype;
  const copy = Reflect.construct<[], Error>(Error, [], Like);
  delete copy.stack;
  for (const key of Reflect.ownKeys(error)) {
    const descriptor = Object.getOwnPropertyDescriptor(error, key);
    if (descriptor) Object.defineProperty(copy, key, descriptor);
  }
  return copy;
}

// A registered class may compute these in getters that expect constructor-set fields.
function readText(error: Error, key: 'message' | 'name' | 'stack'): string | undefined {
  try {
    const value: unknown = error[key];
    return typeof value === 'string' ? value : undefined;
  } catch {
    return undefined;
  }
}

function setHidden(target: object, key: PropertyKey, value: unknown): void {
  Object.defineProperty(target, key, {
    value,
    writable: true,
    enumerable: false,
    configurable: true,
  });
}
