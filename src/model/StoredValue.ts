import { InvalidArgumentError } from '../errors/InvalidArgumentError';

/**
 * A stored value (a step's result, a run's arguments) as people and tools see it: the
 * codec's JSON text as stored, cut at a bounded length, never decoded — a preview of a
 * 1 MiB value costs a slice, not a parse. Values JSON cannot hold read as the codec's
 * tagged objects, e.g. `{"$wm":"Date","v":"2026-12-01T00:00:00.000Z"}`.
 */
export interface StoredValue {
  /** The stored JSON text, or its first `valueChars` characters when `truncated`. */
  json: string;
  /** True when `json` is the start of a longer text. */
  truncated: boolean;
  /** Characters in the whole stored text. */
  length: number;
}

/** Characters of a stored value shown when `valueChars` is not given. */
export const DEFAULT_VALUE_CHARS = 200;

/**
 * `text` cut at `maxChars` characters (never inside a surrogate pair).
 *
 * @example
 * ```ts
 * storedValue('{"to":"ann@example.com"}', 10); // { json: '{"to":"ann', truncated: true, length: 24 }
 * ```
 */
export function storedValue(text: string, maxChars: number): StoredValue {
  if (text.length <= maxChars) return { json: text, truncated: false, length: text.length };
  const end = /[\uD800-\uDBFF]/.test(text[maxChars - 1]) ? maxChars - 1 : maxChars;
  return { json: text.slice(0, end), truncated: true, length: text.length };
}

/**
 * A stored value read cut in the database: `prefix` is the start of a text of `length`
 * characters, cut here as {@link storedValue} cuts. A text the database read whole gives
 * exactly `storedValue`'s answer; for a cut one, `length` counts characters as the database
 * does (Unicode code points, so a character outside the BMP counts once).
 */
export function storedPrefix(prefix: string, length: number, maxChars: number): StoredValue {
  const value = storedValue(prefix, maxChars);
  return codePoints(prefix) === length ? value : { json: value.json, truncated: true, length };
}

function codePoints(text: string): number {
  let count = 0;
  for (let i = 0; i < text.length; i++) {
    const unit = text.charCodeAt(i);
    // A high surrogate followed by a low one is one code point.
    if (unit >= 0xd800 && unit <= 0xdbff && i + 1 < text.length) {
      const next = text.charCodeAt(i + 1);
      if (next >= 0xdc00 && next <= 0xdfff) i++;
    }
    count++;
  }
  return count;
}

/** Checks a `valueChars` option: a whole number of characters from 1, or `Infinity` for whole values. */
export function valueCharsOption(
  value: unknown,
  where: string,
  defaultChars = DEFAULT_VALUE_CHARS,
): number {
  if (value === undefined) return defaultChars;
  if (value === Infinity || (Number.isSafeInteger(value) && (value as number) >= 1)) {
    return value as number;
  }
  throw new InvalidArgumentError(
    where,
    `must be a whole number of characters from 1, or Infinity for whole values, got ${typeof value === 'number' ? value : typeof value}`,
  );
}
