import type { DialectName } from './connection/Dialect';
import { jsonStringSql, prefixSql } from './valuePrefix';
import { errorNameChars } from '../model/ErrorSummary';

/** A stored text read cut in the database (see `prefixSql`): its start and its whole length. */
export interface TextPrefix {
  text: string;
  length: number;
}

/** The members of a stored error the console and CLI show, each cut in the database. */
export interface ErrorFields {
  name: TextPrefix | null;
  message: TextPrefix | null;
  code: TextPrefix | null;
}

const MEMBERS = ['name', 'message', 'code'] as const;

/**
 * Select-list SQL for the `name`, `message` and `code` strings of the encoded error in
 * `column`, with their lengths (`<alias>_name`, `<alias>_name_length`, …): the message cut at
 * `chars` characters, the name and code at `errorNameChars(chars)`. Only rows `when` holds
 * (an SQL condition) are parsed.
 */
export function errorFieldsSql(
  dialect: DialectName,
  column: string,
  chars: number,
  alias: string,
  when = 'TRUE',
): string {
  return MEMBERS.map((member) => {
    const limit = member === 'message' ? chars : errorNameChars(chars);
    const cut = prefixSql(dialect, jsonStringSql(dialect, column, member), limit);
    return (
      `CASE WHEN ${when} THEN ${cut.text} END AS ${alias}_${member}, ` +
      `CASE WHEN ${when} THEN ${cut.length} END AS ${alias}_${member}_length`
    );
  }).join(', ');
}

/** The fields {@link errorFieldsSql} selected as `alias`, from a raw row. */
export function errorFieldsOf(raw: Record<string, unknown>, alias: string): ErrorFields {
  const field = (member: string): TextPrefix | null => {
    const text = raw[`${alias}_${member}`];
    if (text === null || text === undefined) return null;
    const prefix = typeof text === 'string' ? text : JSON.stringify(text);
    return { text: prefix, length: Number(raw[`${alias}_${member}_length`]) };
  };
  return { name: field('name'), message: field('message'), code: field('code') };
}
