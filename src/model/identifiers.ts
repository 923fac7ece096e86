import { InvalidArgumentError } from '../errors/InvalidArgumentError';

/**
 * The longest run id, in UTF-16 code units (JavaScript's `length`). Run ids are stored in
 * `VARCHAR(255)` columns, which count characters: a string of at most 255 code units never
 * has more than 255 characters.
 */
export const MAX_RUN_ID_LENGTH = 255;

/**
 * The longest signal name. A run waiting for one stores `signal:<name>` in a 255-character
 * column; 200 leaves that prefix room, and is the same limit everywhere a name is taken
 * (`ctx.waitForSignal`, `runtime.signal`, the console, the CLI).
 */
export const MAX_SIGNAL_NAME_LENGTH = 200;

/**
 * The longest signal idempotency key. The key is stored in a unique index with the run id
 * and the signal name; 200 keeps that index within MySQL's 3072-byte limit for utf8mb4.
 */
export const MAX_SIGNAL_KEY_LENGTH = 200;

/**
 * Run ids the console could not address: a browser resolves `.` and `..` in
 * `/api/runs/<id>` as path segments before the request is sent.
 */
const RESERVED_RUN_IDS: readonly string[] = ['.', '..'];

const LONE_SURROGATE = /[\uD800-\uDBFF](?![\uDC00-\uDFFF])|(?<![\uD800-\uDBFF])[\uDC00-\uDFFF]/;

/**
 * Checks a run id given to a public call (`signal`, `handle`, `start({ runId })`, `fork`'s
 * `newRunId`, what `@Workflow({ id })` returns, the CLI's and the console's run ids): a
 * string of 1 to {@link MAX_RUN_ID_LENGTH} characters, well-formed Unicode (no lone
 * surrogate, which the drivers turn into U+FFFD, so two ids would name one run), without
 * the NUL character (PostgreSQL cannot store it), and neither `.` nor `..`.
 *
 * @param where - the call and argument, for the message: `'signal(): runId'`.
 * @throws {@link InvalidArgumentError} naming `where`, the id and what is wrong with it.
 *
 * @example
 * ```ts
 * assertRunId('po-1234', 'signal(): runId'); // fine
 * assertRunId('', 'signal(): runId'); // InvalidArgumentError: signal(): runId must be …
 * ```
 */
export function assertRunId(id: unknown, where: string): asserts id is string {
  assertText(id, where, MAX_RUN_ID_LENGTH);
  if (RESERVED_RUN_IDS.includes(id)) {
    throw new InvalidArgumentError(
      where,
      `must not be "${id}": "." and ".." are reserved (the console addresses runs by URL path)`,
    );
  }
}

/**
 * Checks a signal name (`ctx.waitForSignal`, `runtime.signal`, the console, the CLI): a
 * string of 1 to {@link MAX_SIGNAL_NAME_LENGTH} characters, well-formed Unicode, without
 * the NUL character. An empty name is refused: nothing could ever wait for it.
 *
 * @throws {@link InvalidArgumentError} naming `where`, the name and what is wrong with it.
 *
 * @example
 * ```ts
 * assertSignalName('approval', 'waitForSignal(): name');
 * ```
 */
export function assertSignalName(name: unknown, where: string): asserts name is string {
  assertText(name, where, MAX_SIGNAL_NAME_LENGTH);
}

/**
 * Checks a signal's idempotency key (`signal(…, { idempotencyKey })`, the console's
 * `idempotencyKey`, the CLI's `--key`): a string of 1 to {@link MAX_SIGNAL_KEY_LENGTH}
 * characters, well-formed Unicode, without the NUL character. An empty key is refused: it
 * would make every keyless retry of a client a duplicate of the first.
 *
 * @throws {@link InvalidArgumentError} naming `where`, the key and what is wrong with it.
 *
 * @example
 * ```ts
 * assertSignalKey('msg-7f3a', 'signal(): idempotencyKey');
 * ```
 */
export function assertSignalKey(key: unknown, where: string): asserts key is string {
  assertText(key, where, MAX_SIGNAL_KEY_LENGTH);
}

/**
 * Checks text compared with stored text (a list filter, a cursor's id): a string of 1 to
 * `maxLength` characters that the database can hold as it is — no NUL, no lone surrogate.
 *
 * @throws {@link InvalidArgumentError} naming `where` and what is wrong.
 */
export function assertText(
  value: unknown,
  where: string,
  maxLength: number,
): asserts value is string {
  if (typeof value !== 'string') {
    throw new InvalidArgumentError(where, `must be a string, got ${describeType(value)}`);
  }
  if (value.length === 0 || value.length > maxLength) {
    throw new InvalidArgumentError(
      where,
      `must be 1 to ${maxLength} characters long, got ${value.length}` +
        (value.length === 0 ? '' : `: ${quote(value)}`),
    );
  }
  const nul = value.indexOf('\u0000');
  if (nul >= 0) {
    throw new InvalidArgumentError(
      where,
      `must not contain the NUL character (U+0000), found at index ${nul}: ${quote(value)}`,
    );
  }
  const lone = LONE_SURROGATE.exec(value);
  if (lone) {
    const unit = lone[0].charCodeAt(0).toString(16).toUpperCase();
    throw new InvalidArgumentError(
      where,
      `must be well-formed Unicode: a lone surrogate U+${unit} at index ${lone.index}: ${quote(value)}`,
    );
  }
}

/** The value as a JSON string (control characters and lone surrogates escaped), cut short. */
function quote(value: string): string {
  const shown = value.length > 60 ? `${value.slice(0, 60)}…` : value;
  return JSON.stringify(shown);
}

function describeType(value: unknown): string {
  if (value === null) return 'null';
  if (Array.isArray(value)) return 'an array';
  return typeof value;
}
