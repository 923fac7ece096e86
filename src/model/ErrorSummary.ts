import { storedPrefix } from './StoredValue';

/** What people and tools see of a stored error: its name, message and string `code`. */
export interface ErrorSummary {
  name: string;
  message: string;
  code?: string;
}

/**
 * An error's `name` and `code` are identifiers: where errors are cut (`errorChars`), these
 * are cut at this many characters at most, so a 1 MB `code` costs no more than a short one.
 */
export const MAX_ERROR_NAME_CHARS = 200;

/** Where a cut error's `name` and `code` end, given where its message ends. */
export function errorNameChars(errorChars: number): number {
  return Math.min(errorChars, MAX_ERROR_NAME_CHARS);
}

/**
 * `prefix`, the start of a stored text of `length` characters, cut at `maxChars`; a cut
 * text ends with how much was left out, e.g. `boom!!!… (4000 more characters)`.
 */
export function cutText(prefix: string, length: number, maxChars: number): string {
  const value = storedPrefix(prefix, length, maxChars);
  return value.truncated
    ? `${value.json}… (${value.length - value.json.length} more characters)`
    : value.json;
}
