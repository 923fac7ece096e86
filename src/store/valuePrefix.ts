import type { DialectName } from './connection/Dialect';

/** SQL for a text cut in the database: its first characters, and its whole length. */
export interface PrefixSql {
  text: string;
  length: string;
}

/**
 * SQL that reads the first `chars` characters of the text `expr` (`Infinity`: all of it)
 * and its whole length, so a preview of a 1 MiB value moves a slice out of the database,
 * never the whole text to cut here. Lengths count characters as the database does
 * (Unicode code points). `chars` must be a checked whole number (see `valueCharsOption`).
 */
export function prefixSql(dialect: DialectName, expr: string, chars: number): PrefixSql {
  const length = dialect === 'mysql' ? `CHAR_LENGTH(${expr})` : `length(${expr})`;
  if (chars === Infinity) return { text: expr, length };
  if (!Number.isSafeInteger(chars) || chars < 1) throw new RangeError(`bad prefix length ${chars}`);
  const text = dialect === 'mysql' ? `LEFT(${expr}, ${chars})` : `substr(${expr}, 1, ${chars})`;
  return { text, length };
}

/**
 * SQL for the string under `key` of the JSON object stored in `column`, unescaped; NULL when
 * the text is no JSON object or that member is no string. The database parses the value;
 * only what {@link prefixSql} cuts of the member leaves it.
 */
export function jsonStringSql(dialect: DialectName, column: string, key: string): string {
  if (!/^[a-zA-Z]+$/.test(key)) throw new RangeError(`bad JSON key ${key}`);
  switch (dialect) {
    case 'sqlite':
      return (
        `CASE WHEN json_valid(${column}) AND json_type(${column}, '$.${key}') = 'text' ` +
        `THEN json_extract(${column}, '$.${key}') END`
      );
    case 'mysql':
      return (
        `CASE WHEN JSON_TYPE(JSON_EXTRACT(${column}, '$.${key}')) = 'STRING' ` +
        `THEN JSON_UNQUOTE(JSON_EXTRACT(${column}, '$.${key}')) END`
      );
    case 'postgres':
      // A text that is no JSON fails the cast: the caller reads such a page whole instead.
      return (
        `CASE WHEN json_typeof(${column}::json -> '${key}') = 'string' ` +
        `THEN ${column}::json ->> '${key}' END`
      );
  }
}
