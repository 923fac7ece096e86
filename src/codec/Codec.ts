import './waymarkErrorClasses';
import { ConfigurationError } from '../errors/ConfigurationError';
import { CorruptValueError } from '../errors/CorruptValueError';
import { SerializationError } from '../errors/SerializationError';
import { describeThrown } from './describeNode';
import { ValueDecoder } from './ValueDecoder';
import { ValueEncoder } from './ValueEncoder';
import { MAX_DEPTH, nestsDeeperThan } from './ValueLimits';
import { TAG_KEY_JSON } from './ValueTags';

/** Options of a {@link Codec}. */
export interface CodecOptions {
  /** Largest encoded value accepted, in bytes of UTF-8. Default 1 MiB. */
  maxValueBytes?: number;
}

const MIB = 1_048_576;
const KIB = 1024;

/**
 * Turns workflow arguments, step results, errors and signal payloads into the JSON text
 * stored in a row, and back.
 *
 * What JSON cannot hold is written as a tagged object `{"$wm": <tag>, ...}`: `undefined`
 * (`{"$wm":"undefined"}`), array holes (`"hole"`), `NaN`/`±Infinity`/`-0` (`"Number"`),
 * `BigInt`, `Date` (ISO text, `null` when invalid), `RegExp`, `Map` (`[[key, value], ...]`),
 * `Set`, `Buffer` and typed arrays such as `Uint8Array` (base64), and errors
 * (`{"$wm":"Error","name":…,"message":…,"stack":…,"cause":…,"props":{…}}`, plus `"class"` when
 * the class name differs from `name`, `"code"` when it is not an own property, and
 * `"errors"` for an `AggregateError`).
 * A user object that has a `$wm` key is wrapped as `{"$wm":"Object","v":{...}}`. Anything
 * else is plain JSON, so a value that needs no tag is stored exactly as `JSON.stringify`
 * writes it. Class instances whose classes define no methods are stored as their own
 * enumerable data and read back as plain objects.
 *
 * Paths in errors read like JavaScript from a root such as `result`:
 * `result.items[3].client`, `result["a b"]`, `result.prices<"EUR">` (a Map value),
 * `result.byUser<entry 2>` / `result.byUser<key of entry 2>` (value / key of a Map entry
 * whose key is an object), `result.tags<entry 2>` (a Set element), `error.cause`.
 *
 * @example
 * ```ts
 * const codec = new Codec();
 * const text = codec.encode({ at: new Date(0), total: 10n }, 'result');
 * const value = codec.decode(text, 'result'); // { at: Date, total: 10n }
 * ```
 */
export class Codec {
  /** Largest encoded value accepted, in bytes of UTF-8. */
  readonly maxValueBytes: number;

  constructor(options: CodecOptions = {}) {
    const max = options.maxValueBytes ?? MIB;
    if (!Number.isSafeInteger(max) || max <= 0) {
      throw new ConfigurationError(`maxValueBytes must be a positive integer, got ${max}`);
    }
    this.maxValueBytes = max;
  }

  /**
   * The stored text of `value`. Throws `SerializationError` naming the path of the first
   * part that cannot be stored so that it reads back equal (nested deeper than 1,000
   * levels, a getter or Proxy trap that throws, …), or when the text is over
   * `maxValueBytes`. It throws nothing else.
   *
   * @param path - the name of the value in messages, e.g. `'result'`, `'args'`, `'error'`
   */
  encode(value: unknown, path: string): string {
    const text = stringify(new ValueEncoder(path).encode(value), path);
    // UTF-8 takes 1 to 3 bytes per UTF-16 unit; only measure when that range straddles the limit.
    if (text.length * 3 > this.maxValueBytes) {
      const bytes = Buffer.byteLength(text, 'utf8');
      if (bytes > this.maxValueBytes) {
        throw new SerializationError(path, sizeReason(bytes, this.maxValueBytes));
      }
    }
    return text;
  }

  /**
   * The value stored as `text`. Throws `CorruptValueError` naming the path when the text is
   * not JSON, nests deeper than 1,000 levels, or holds a tag this codec does not know or one
   * whose content it could not have written. It throws nothing else.
   *
   * @param path - names the value in messages; the caller's context, e.g. `step #3 "book" result`
   */
  decode(text: string, path: string): unknown {
    const parsed = parse(text, path);
    // Text without tags is plain JSON, returned as parsed, unless too deep to handle later.
    return text.includes(TAG_KEY_JSON) || nestsDeeperThan(text, MAX_DEPTH)
      ? new ValueDecoder(path).decode(parsed)
      : parsed;
  }

  /**
   * `encoded` with the keys of every object sorted, so two encodings of equal values compare
   * equal as strings whatever order their keys were written in. Map and Set entries keep
   * their order.
   */
  static canonical(encoded: string): string {
    return JSON.stringify(parse(encoded, 'value'), (_key, value: unknown) =>
      typeof value === 'object' && value !== null && !Array.isArray(value)
        ? sortKeys(value as Record<string, unknown>)
        : value,
    );
  }
}

/**
 * The encoded tree reuses the caller's objects where nothing needed a tag, so JSON's writer
 * reads their getters and Proxy traps a second time; what they throw then is ours to name.
 */
function stringify(tree: unknown, path: string): string {
  try {
    return JSON.stringify(tree);
  } catch (error) {
    throw new SerializationError(path, `writing it as JSON threw ${describeThrown(error)}`);
  }
}

function parse(text: string, path: string): unknown {
  try {
    return JSON.parse(text);
  } catch (error) {
    const detail = error instanceof Error ? ` (${error.message})` : '';
    throw new CorruptValueError(path, `stored text is not valid JSON${detail}`, { cause: error });
  }
}

// A null-prototype copy, so a key named `__proto__` stays an ordinary key.
function sortKeys(object: Record<string, unknown>): Record<string, unknown> {
  const sorted = Object.create(null) as Record<string, unknown>;
  for (const key of Object.keys(object).sort()) sorted[key] = object[key];
  return sorted;
}

function sizeReason(bytes: number, limit: number): string {
  let size = formatBytes(bytes);
  let max = formatBytes(limit);
  if (size === max) [size, max] = [`${bytes} bytes`, `${limit} bytes`];
  return `value is ${size}, over the limit of ${max} (maxValueBytes)`;
}

function formatBytes(bytes: number): string {
  if (bytes >= MIB) return `${Number((bytes / MIB).toFixed(1))} MiB`;
  if (bytes >= KIB) return `${Number((bytes / KIB).toFixed(1))} KiB`;
  return `${bytes} bytes`;
}
