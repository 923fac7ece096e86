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
