import type { StatementKind } from './StatementInfo';

const KINDS: Readonly<Record<string, StatementKind>> = {
  SELECT: 'select',
  INSERT: 'insert',
  UPDATE: 'update',
  DELETE: 'delete',
  BEGIN: 'begin',
  START: 'begin',
  COMMIT: 'commit',
  END: 'commit',
  ROLLBACK: 'rollback',
  ABORT: 'rollback',
};

/** Comments and whitespace before the first keyword, which drivers and ORMs sometimes add. */
const LEADING = /^(?:\s+|--[^\n]*(?:\n|$)|\/\*[\s\S]*?\*\/)*/;

/**
 * The kind of a statement from its first SQL keyword, e.g. `'insert'` for
 * `/* step *\/ INSERT INTO waymark_steps ...`. A rollback to a savepoint keeps the
 * transaction open, so it is `'other'`.
 */
export function classifyStatement(sql: string): StatementKind {
  const rest = sql.replace(LEADING, '');
  const words = /^([A-Za-z]+)(?:\s+([A-Za-z]+))?/.exec(rest);
  if (!words) return 'other';
  const first = words[1].toUpperCase();
  if (first === 'ROLLBACK' && words[2]?.toUpperCase() === 'TO') return 'other';
  return KINDS[first] ?? 'other';
}
