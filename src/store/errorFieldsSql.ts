import type { DialectName } from './connection/Dialect';
import { prefixSql } from './valuePrefix';
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

/** SQL reading an error's members: a select list, and what the FROM clause joins for it. */
export interface ErrorFieldsSql {
  columns: string;
  join: string;
}

const MEMBERS = ['name', 'message', 'code'] as const;

/**
 * SQL for the `name`, `message` and `code` strings of the encoded error in `column`, with
 * their lengths (`<alias>_name`, `<alias>_name_length`, …): the message cut at `chars`
 * characters, the name and code at `errorNameChars(chars)`. Only rows `when` holds (an SQL
 * condition) are parsed, each once: PostgreSQL and MariaDB parse a JSON text anew for each
 * function given it, which for a 1 MB error is milliseconds each.
 */
export function errorFieldsSql(
  dialect: DialectName,
  column: string,
  chars: number,
  alias: string,
  when = 'TRUE',
): ErrorFieldsSql {
  const { join, member } = parsedOnce(
    dialect,
    column,
    alias,
    `${when} AND ${startsAnObject(dialect, column)}`,
  );
  const columns = MEMBERS.map((key) => {
    const cut = prefixSql(dialect, member(key), key === 'message' ? chars : errorNameChars(chars));
    return `${cut.text} AS ${alias}_${key}, ${cut.length} AS ${alias}_${key}_length`;
  }).join(', ');
  return { columns, join };
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

function startsAnObject(dialect: DialectName, column: string): string {
  return dialect === 'mysql' ? `LEFT(${column}, 1) = '{'` : `substr(${column}, 1, 1) = '{'`;
}

/**
 * How each dialect parses the text once: SQLite caches a parsed text between its JSON
 * functions; PostgreSQL parses it to `jsonb` in a lateral subquery (`OFFSET 0` keeps the
 * planner from copying the cast into each use); MariaDB reads all three with `JSON_TABLE`
 * (a member that is no string reads as its JSON there). A text that is no JSON fails the
 * statement on those two: the caller reads such values whole instead.
 */
function parsedOnce(
  dialect: DialectName,
  column: string,
  alias: string,
  when: string,
): { join: string; member: (key: string) => string } {
  switch (dialect) {
    case 'sqlite':
      return {
        join: '',
        member: (key) =>
          `CASE WHEN ${when} AND json_valid(${column}) AND json_type(${column}, '$.${key}') = 'text' ` +
          `THEN json_extract(${column}, '$.${key}') END`,
      };
    case 'postgres': {
      const doc = `${alias}_doc`;
      return {
        join: `CROSS JOIN LATERAL (SELECT CASE WHEN ${when} THEN ${column}::jsonb END AS ${doc} OFFSET 0) ${alias}_parsed`,
        member: (key) =>
          `CASE WHEN jsonb_typeof(${doc} -> '${key}') = 'string' THEN ${doc} ->> '${key}' END`,
      };
    }
    case 'mysql': {
      const table = `${alias}_parsed`;
      const columns = MEMBERS.map((key) => `${alias}_${key}_raw LONGTEXT PATH '$.${key}'`).join(
        ', ',
      );
      return {
        join: `LEFT JOIN JSON_TABLE(CASE WHEN ${when} THEN ${column} END, '$' COLUMNS (${columns})) AS ${table} ON TRUE`,
        member: (key) => `${table}.${alias}_${key}_raw`,
      };
    }
  }
}
